package file

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// entry is one line of the seen-files log (Spark's FileEntry): a file, its
// modification time and the log batch that took it.
type entry struct {
	Path      string `json:"path"`
	Timestamp int64  `json:"timestamp"`
	BatchID   int64  `json:"batchId"`
}

// encodeEntries writes a log batch as Spark's FileStreamSourceLog does:
// "v1" then one JSON entry per line.
func encodeEntries(es []entry) []byte {
	var b bytes.Buffer
	b.WriteString("v1")
	for _, e := range es {
		line, _ := json.Marshal(e)
		b.WriteByte('\n')
		b.Write(line)
	}
	return b.Bytes()
}

func decodeEntries(id int64, data []byte) ([]entry, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	if !sc.Scan() || sc.Text() != "v1" {
		return nil, fmt.Errorf("seen-files log batch %d: unsupported version (want v1)", id)
	}
	var out []entry
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("seen-files log batch %d: %w", id, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// compactInterval is how often the log is compacted, Spark's
// spark.sql.streaming.fileSource.log.compactInterval default: batch N with
// (N+1) % 10 == 0 is written as "N.compact", holding every entry of
// batches 0..N, and the files it replaces are deleted.
const compactInterval = 10

func isCompactionBatch(id int64) bool { return (id+1)%compactInterval == 0 }

func batchName(id int64) string {
	if isCompactionBatch(id) {
		return strconv.FormatInt(id, 10) + ".compact"
	}
	return strconv.FormatInt(id, 10)
}

// parseName reads a log file name: "N" or "N.compact".
func parseName(name string) (id int64, compact, ok bool) {
	base, compact := strings.CutSuffix(name, ".compact")
	id, err := strconv.ParseInt(base, 10, 64)
	return id, compact, err == nil && id >= 0
}

// memLog is a metadata log in memory, for a source used outside a
// streaming query (tests); queries give the source their checkpoint's.
type memLog struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (l *memLog) Add(_ context.Context, name string, data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string][]byte{}
	}
	if old, ok := l.m[name]; ok && !bytes.Equal(old, data) {
		return fmt.Errorf("log file %s exists", name)
	}
	l.m[name] = append([]byte(nil), data...)
	return nil
}

func (l *memLog) Get(_ context.Context, name string) ([]byte, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.m[name]
	return d, ok, nil
}

func (l *memLog) List(context.Context) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.m))
	for k := range l.m {
		out = append(out, k)
	}
	return out, nil
}

func (l *memLog) Delete(_ context.Context, name string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, name)
	return nil
}
