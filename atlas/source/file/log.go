package file

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// memLog is a metadata log in memory, for a source used outside a
// streaming query (tests); queries give the source their checkpoint's.
type memLog struct {
	mu sync.Mutex
	m  map[int64][]byte
}

func (l *memLog) Add(_ context.Context, id int64, data []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[int64][]byte{}
	}
	if old, ok := l.m[id]; ok && !bytes.Equal(old, data) {
		return fmt.Errorf("log batch %d exists", id)
	}
	l.m[id] = append([]byte(nil), data...)
	return nil
}

func (l *memLog) Get(_ context.Context, id int64) ([]byte, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.m[id]
	return d, ok, nil
}

func (l *memLog) Latest(context.Context) (int64, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	best, ok := int64(-1), false
	for id := range l.m {
		if id > best {
			best, ok = id, true
		}
	}
	return best, ok, nil
}
