// Package sinklog is the file sink's log, in Spark's FileStreamSinkLog
// layout so that Spark and Atlas read each other's output: under the
// output directory, _spark_metadata/<batch id> holds the line "v1" and one
// JSON line per file the batch committed ({"path":"file:///...","size":..,
// "isDir":false,"modificationTime":..,"blockReplication":1,
// "blockSize":..,"action":"add"}). Every CompactInterval batches the log is
// compacted: batch N with (N+1) % 10 == 0 is written as "N.compact" and
// lists every file of batches 0..N. A batch's entry is written after its
// files, atomically and only once; a reader lists only the files of the
// log, so files of a batch that crashed before its entry stay invisible.
package sinklog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// Dir is the log's directory under the output directory.
const Dir = "_spark_metadata"

// CompactInterval is Spark's default
// spark.sql.streaming.fileSink.log.compactInterval.
const CompactInterval = 10

const version = "v1"

// The actions of an entry.
const (
	ActionAdd    = "add"
	ActionDelete = "delete"
)

// Entry is one file of the log, Spark's SinkFileStatus.
type Entry struct {
	Path             string `json:"path"`
	Size             int64  `json:"size"`
	IsDir            bool   `json:"isDir"`
	ModificationTime int64  `json:"modificationTime"`
	BlockReplication int    `json:"blockReplication"`
	BlockSize        int64  `json:"blockSize"`
	Action           string `json:"action"`
}

// LocalPath returns the entry's path as a local file path.
func (e Entry) LocalPath() (string, error) {
	u, err := url.Parse(e.Path)
	if err != nil || (u.Scheme != "" && u.Scheme != "file") {
		return "", fmt.Errorf("%s: not a local file path", e.Path)
	}
	if u.Scheme == "" {
		return filepath.FromSlash(e.Path), nil
	}
	return filepath.FromSlash(u.Path), nil
}

// FileEntry describes a written local file as an "add" entry.
func FileEntry(path string) (Entry, error) {
	info, err := os.Stat(path)
	if err != nil {
		return Entry{}, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Entry{}, err
	}
	return Entry{
		Path:             (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(),
		Size:             info.Size(),
		ModificationTime: info.ModTime().UnixMilli(),
		BlockReplication: 1,
		BlockSize:        32 << 20, // Hadoop's local file system default
		Action:           ActionAdd,
	}, nil
}

// Log is the sink log of one output directory.
type Log struct {
	dir string // the _spark_metadata directory
}

// Open returns the log of an output directory (nothing is created).
func Open(outputDir string) *Log { return &Log{dir: filepath.Join(outputDir, Dir)} }

// Exists reports whether outputDir holds a sink log, i.e. was written by a
// file sink: readers then list its files through the log only.
func Exists(outputDir string) bool {
	info, err := os.Stat(filepath.Join(outputDir, Dir))
	return err == nil && info.IsDir()
}

// batchFile parses a log file name: "N" or "N.compact".
func batchFile(name string) (int64, bool, bool) {
	base, compact := strings.CutSuffix(name, ".compact")
	id, err := strconv.ParseInt(base, 10, 64)
	if err != nil || id < 0 {
		return 0, false, false
	}
	return id, compact, true
}

// batches lists the log's batch ids, ascending, with whether each is a
// compaction.
func (l *Log) batches() ([]int64, map[int64]bool, error) {
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("file sink log %s: %w", l.dir, err)
	}
	var ids []int64
	compact := map[int64]bool{}
	for _, e := range ents {
		if id, c, ok := batchFile(e.Name()); ok && !e.IsDir() {
			ids = append(ids, id)
			compact[id] = compact[id] || c
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, compact, nil
}

// Latest returns the latest committed batch id.
func (l *Log) Latest() (int64, bool, error) {
	ids, _, err := l.batches()
	if err != nil || len(ids) == 0 {
		return -1, false, err
	}
	return ids[len(ids)-1], true, nil
}

func (l *Log) name(id int64) string {
	n := strconv.FormatInt(id, 10)
	if (id+1)%CompactInterval == 0 {
		n += ".compact"
	}
	return filepath.Join(l.dir, n)
}

// Add commits batch id's files. A compaction batch lists every file of
// the log so far as well. It returns false, writing nothing, when the batch
// is already in the log (a replay, or another writer).
func (l *Log) Add(id int64, entries []Entry) (bool, error) {
	if latest, ok, err := l.Latest(); err != nil {
		return false, err
	} else if ok && id <= latest {
		return false, nil
	}
	if (id+1)%CompactInterval == 0 {
		all, err := l.AllFiles()
		if err != nil {
			return false, err
		}
		entries = append(all, entries...)
	}
	var buf bytes.Buffer
	buf.WriteString(version)
	for _, e := range entries {
		js, err := json.Marshal(e)
		if err != nil {
			return false, err
		}
		buf.WriteByte('\n')
		buf.Write(js)
	}
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return false, fmt.Errorf("file sink log: %w", err)
	}
	tmp := filepath.Join(l.dir, "."+strconv.FormatInt(id, 10)+"."+uuid.NewString()+".tmp")
	if err := writeSynced(tmp, buf.Bytes()); err != nil {
		return false, fmt.Errorf("file sink log: batch %d: %w", id, err)
	}
	defer os.Remove(tmp)
	// A hard link never replaces an existing entry: of two writers of one
	// batch, exactly one wins.
	if err := os.Link(tmp, l.name(id)); err != nil {
		if errors.Is(err, os.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("file sink log: batch %d: %w", id, err)
	}
	if d, err := os.Open(l.dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return true, nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Batch reads one batch's entries (of a compaction file, every file so far).
func (l *Log) Batch(id int64) ([]Entry, error) {
	data, err := os.ReadFile(filepath.Join(l.dir, strconv.FormatInt(id, 10)+".compact"))
	if errors.Is(err, os.ErrNotExist) {
		data, err = os.ReadFile(filepath.Join(l.dir, strconv.FormatInt(id, 10)))
	}
	if err != nil {
		return nil, fmt.Errorf("file sink log %s: batch %d: %w", l.dir, id, err)
	}
	return parse(l.dir, id, data)
}

func parse(dir string, id int64, data []byte) ([]Entry, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("file sink log %s: batch %d is empty (no version line)", dir, id)
	}
	if v := strings.TrimSpace(sc.Text()); v != version {
		return nil, fmt.Errorf("file sink log %s: batch %d has version %q; Atlas reads %q", dir, id, v, version)
	}
	var out []Entry
	for line := 2; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("file sink log %s: batch %d line %d: %w", dir, id, line, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// AllFiles returns the committed files: the latest compaction's entries
// and every later batch's, without those a "delete" entry removed, in log
// order.
func (l *Log) AllFiles() ([]Entry, error) {
	ids, compact, err := l.batches()
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	start := 0
	for i := len(ids) - 1; i >= 0; i-- {
		if compact[ids[i]] {
			start = i
			break
		}
	}
	var out []Entry
	for _, id := range ids[start:] {
		es, err := l.Batch(id)
		if err != nil {
			return nil, err
		}
		out = append(out, es...)
	}
	deleted := map[string]bool{}
	for _, e := range out {
		if e.Action == ActionDelete {
			deleted[e.Path] = true
		}
	}
	seen := map[string]bool{}
	kept := out[:0]
	for _, e := range out {
		if e.Action == ActionDelete || deleted[e.Path] || seen[e.Path] {
			continue
		}
		seen[e.Path] = true
		kept = append(kept, e)
	}
	return kept, nil
}
