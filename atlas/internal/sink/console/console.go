// Package console is the streaming sink that prints each micro-batch, as
// Spark's console sink does:
//
//	-------------------------------------------
//	Batch: 3
//	-------------------------------------------
//	+-----+-----+
//	...
package console

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
	"github.com/atlas-lakehouse/atlas/atlas/internal/table"
)

// ValidOptions are the console sink's options.
var ValidOptions = []string{"numRows", "truncate"}

// Sink prints batches to W.
type Sink struct {
	W        io.Writer
	NumRows  int
	Truncate bool
	// Ring, when set, keeps the last printed batches for clients (the
	// notebook cell waiting on the query shows them).
	Ring *Ring
}

// New builds a console sink from options (numRows default 20, truncate default true).
func New(w io.Writer, opts map[string]string) (*Sink, error) {
	s := &Sink{W: w, NumRows: 20, Truncate: true}
	if v, ok := opts["numRows"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("console sink: numRows must be a non-negative integer, got %q", v)
		}
		s.NumRows = n
	}
	if v, ok := opts["truncate"]; ok {
		t, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("console sink: truncate must be true or false, got %q", v)
		}
		s.Truncate = t
	}
	return s, nil
}

// Description implements sink.Sink.
func (s *Sink) Description() string { return "ConsoleSink" }

// AddBatch implements sink.Sink (printing is not idempotent, as in Spark).
func (s *Sink) AddBatch(_ context.Context, b *sink.Batch) error {
	text := Format(b.BatchID, table.TextTable(b.Schema, b.Records, s.NumRows, s.Truncate))
	if s.Ring != nil {
		s.Ring.add(Printed{BatchID: b.BatchID, Text: text})
	}
	// A log that cannot be written does not fail the query (as before).
	_, _ = io.WriteString(s.W, text)
	return nil
}

// Format is one batch as Spark's ConsoleSink prints it: the header, then
// show()'s table through println(showString), so an empty line follows.
func Format(batchID int64, table string) string {
	return fmt.Sprintf("-------------------------------------------\nBatch: %d\n-------------------------------------------\n%s\n", batchID, table)
}
