package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// leaseFile is the file in a local checkpoint directory that a running
// query holds locked. Spark has no such file: two runs of one checkpoint
// there race on the offsets log and fail (or worse) mid-stream. Here the
// second run fails at Start, saying who holds the checkpoint.
const leaseFile = ".lease"

// ErrInUse is returned by Open when another running query (in this or
// another process) holds the checkpoint.
var ErrInUse = errors.New("checkpoint in use by another running query")

// lease is an exclusive advisory lock on a local checkpoint directory,
// held for as long as the query runs. The operating system drops it when
// the process dies, so a killed notebook cell (SIGKILL) leaves no stale
// lease behind.
type lease struct {
	f *os.File
}

// acquireLease locks dir's lease file without waiting and records this
// process's pid in it.
func acquireLease(dir string) (*lease, error) {
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
		holder := "another query"
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				if pid == os.Getpid() {
					holder = "another query of this program"
				} else {
					holder = fmt.Sprintf("process %d", pid)
				}
			}
		}
		f.Close()
		return nil, fmt.Errorf("%w: checkpoint %s is held by %s; stop that query first (query.Stop(), or interrupt its cell), or give this one its own checkpointLocation or QueryName", ErrInUse, dir, holder)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &lease{f: f}, nil
}

// release unlocks the lease (closing the file drops the lock).
func (l *lease) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
