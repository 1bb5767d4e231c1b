package file

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
)

// readJSON reads JSON Lines (Spark's default, multiLine=false): one JSON
// object per line; blank lines are skipped, as Spark does.
func (r *Reader) readJSON(ctx context.Context, path string, fn func(arrow.RecordBatch) error) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("json source: %w", err)
	}
	var (
		texts   []string
		lineNos []int
		total   int64
	)
	flush := func() error {
		n, err := r.decodeLines(path, texts, lineNos, nil, fn)
		total += n
		texts, lineNos = texts[:0], lineNos[:0]
		return err
	}
	for line := 1; len(data) > 0; line++ {
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		texts = append(texts, string(bytes.TrimSuffix(l, []byte{'\r'})))
		lineNos = append(lineNos, line)
		if len(texts) == linesPerRecord {
			if err := ctx.Err(); err != nil {
				return total, err
			}
			if err := flush(); err != nil {
				return total, err
			}
		}
	}
	return total, flush()
}
