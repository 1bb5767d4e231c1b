package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// leaseFile is the file in a local checkpoint directory that a running
// query holds locked. Spark has no such file: two runs of one checkpoint
// there race on the offsets log and fail (or worse) mid-stream. Here the
// second run fails at Start, saying who holds the checkpoint.
//
// The file holds a leaseRecord in JSON, rewritten in place (never
// replaced: the lock belongs to the file's inode) while the lock is held.
// A clean Close writes it with Released set, the terminal record of a
// stopped query; a process that dies leaves it unreleased, so that
// retention counts the checkpoint as uncertain.
const leaseFile = ".lease"

// ErrInUse is returned by Open when another running query (in this or
// another process) holds the checkpoint.
var ErrInUse = errors.New("checkpoint in use by another running query")

// lease is an exclusive advisory lock on a local checkpoint directory,
// held for as long as the query runs. The operating system drops it when
// the process dies, so a killed notebook cell (SIGKILL) leaves no stale
// lock behind (but an unreleased record: see leaseFile).
type lease struct {
	f    *os.File
	path string
	rec  leaseRecord
	logf func(format string, args ...any)

	mu   sync.Mutex
	lost error
}

// acquireLease locks dir's lease file without waiting and records this
// process as the holder in it. logf reports a lost lease (nil: log.Printf).
func acquireLease(dir string, logf func(string, ...any)) (*lease, error) {
	path := filepath.Join(dir, leaseFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: lease: %w", dir, err)
	}
	ok, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint %s: lease: %w", dir, err)
	}
	if !ok {
		holder := localHolder(path)
		f.Close()
		return nil, fmt.Errorf("%w: checkpoint %s is held by %s; stop that query first (query.Stop(), or interrupt its cell), or give this one its own checkpointLocation or QueryName", ErrInUse, dir, holder)
	}
	token := uuid.NewString()
	l := &lease{f: f, path: path, logf: orLog(logf), rec: leaseRecord{Holder: holderDescription(token), Token: token, PID: os.Getpid()}}
	if err := l.writeRecord(l.rec); err != nil {
		f.Close()
		return nil, fmt.Errorf("checkpoint %s: lease: %w", dir, err)
	}
	return l, nil
}

// localHolder names the holder recorded in a lease file for messages.
func localHolder(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "another query"
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b))) // before JSON records
	var rec leaseRecord
	if err != nil && json.Unmarshal(b, &rec) == nil {
		pid = rec.PID
	}
	switch {
	case pid == 0:
		return "another query"
	case pid == os.Getpid():
		return "another query of this program"
	}
	return fmt.Sprintf("process %d", pid)
}

// readLocalRecord reads a lease file's record; ok=false when the file is
// empty or from before records were JSON (a bare pid).
func readLocalRecord(path string) (rec leaseRecord, ok bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return rec, false, err
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return rec, false, nil
	}
	if json.Unmarshal(b, &rec) != nil {
		return rec, false, nil
	}
	return rec, true, nil
}

// writeRecord rewrites the lease file in place and syncs it.
func (l *lease) writeRecord(rec leaseRecord) error {
	data, _ := json.Marshal(rec)
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	if _, err := l.f.WriteAt(append(data, '\n'), 0); err != nil {
		return err
	}
	return l.f.Sync()
}

// check returns an error wrapping ErrLeaseLost when the lease file this
// lease locks is no longer the one at its path (deleted or replaced: then
// another query can lock the new one), and logs it the first time.
func (l *lease) check() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost != nil {
		return l.lost
	}
	held, err1 := l.f.Stat()
	now, err2 := os.Stat(l.path)
	if err1 == nil && err2 == nil && os.SameFile(held, now) {
		return nil
	}
	l.lost = fmt.Errorf("%w: the lease file %s of this query's checkpoint was deleted or replaced while it ran, so another query may now hold the checkpoint; this query stops without writing", ErrLeaseLost, l.path)
	l.logf("checkpoint: %v", l.lost)
	return l.lost
}

// release writes the terminal record (unless the lease was lost) and
// unlocks the lease (closing the file drops the lock).
func (l *lease) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	var err error
	if l.check() == nil {
		rec := l.rec
		rec.Released, rec.StoppedAt = true, time.Now().UTC()
		err = l.writeRecord(rec)
	}
	err = errors.Join(err, l.f.Close())
	l.f = nil
	return err
}
