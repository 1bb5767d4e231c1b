package state

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// JoinSide is the buffered input of one side of a stream-stream join: its
// rows (nil when empty) and, per row, whether it has matched a row of the
// other side (Spark's state format 2 "matched" flag, which decides the
// null-joined row of an outer join).
type JoinSide struct {
	Rows    arrow.RecordBatch
	Matched []bool
}

// Len is the number of buffered rows.
func (s *JoinSide) Len() int { return len(s.Matched) }

// JoinState is the state of a stream-stream join: both sides' buffered
// rows, and each side's own watermark (the largest event time it has seen
// minus its delay), so that a restarted query derives the same global
// watermark as a run that never stopped. Like the aggregation state, one
// immutable version is saved per micro-batch.
type JoinState struct {
	Sides [2]JoinSide
	// Watermarks are each side's watermark in ms; Seen tells whether the
	// side has had rows with an event time yet.
	Watermarks [2]int64
	Seen       [2]bool
	schemas    [2]*arrow.Schema
}

// NewJoinState is an empty state for the two sides' schemas.
func NewJoinState(left, right *arrow.Schema) *JoinState {
	return &JoinState{schemas: [2]*arrow.Schema{left, right}}
}

// Schema is the schema of a side's rows.
func (s *JoinState) Schema(side int) *arrow.Schema { return s.schemas[side] }

// NumRows is the number of rows buffered on both sides.
func (s *JoinState) NumRows() int64 { return int64(s.Sides[0].Len() + s.Sides[1].Len()) }

// MemoryBytes estimates the buffered rows' memory.
func (s *JoinState) MemoryBytes() int64 {
	var n int64
	for _, side := range s.Sides {
		if side.Rows != nil {
			for _, c := range side.Rows.Columns() {
				for _, b := range c.Data().Buffers() {
					if b != nil {
						n += int64(b.Len())
					}
				}
			}
		}
		n += int64(len(side.Matched))
	}
	return n
}

// Replace sets a side's rows and flags, releasing the previous rows.
func (s *JoinState) Replace(side int, rows arrow.RecordBatch, matched []bool) {
	if old := s.Sides[side].Rows; old != nil {
		old.Release()
	}
	s.Sides[side] = JoinSide{Rows: rows, Matched: matched}
}

type joinSnapshot struct {
	Version    int
	Shape      [2]string
	IPC        [2][]byte
	Matched    [2][]bool
	Watermarks [2]int64
	Seen       [2]bool
}

// Save serialises the state: each side's rows as an Arrow IPC stream.
func (s *JoinState) Save() ([]byte, error) {
	snap := joinSnapshot{Version: 1, Watermarks: s.Watermarks, Seen: s.Seen}
	for i, side := range s.Sides {
		snap.Shape[i] = schemaShape(s.schemas[i].String())
		snap.Matched[i] = side.Matched
		if side.Rows == nil || side.Rows.NumRows() == 0 {
			continue
		}
		var buf bytes.Buffer
		w := ipc.NewWriter(&buf, ipc.WithSchema(side.Rows.Schema()))
		if err := w.Write(side.Rows); err != nil {
			return nil, fmt.Errorf("join state: encode the %d rows of side %d: %w", side.Rows.NumRows(), i, err)
		}
		if err := w.Close(); err != nil {
			return nil, fmt.Errorf("join state: %w", err)
		}
		snap.IPC[i] = buf.Bytes()
	}
	var out bytes.Buffer
	if err := gob.NewEncoder(&out).Encode(&snap); err != nil {
		return nil, fmt.Errorf("join state: encode: %w", err)
	}
	return out.Bytes(), nil
}

// Load replaces the state with a saved version.
func (s *JoinState) Load(data []byte) error {
	var snap joinSnapshot
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&snap); err != nil {
		return fmt.Errorf("join state: decode: %w", err)
	}
	for i := range s.Sides {
		if schemaShape(snap.Shape[i]) != schemaShape(s.schemas[i].String()) {
			return fmt.Errorf("join state: the checkpoint holds join state of other inputs (%s); the query changed since it was checkpointed: use a new checkpointLocation", snap.Shape[i])
		}
	}
	for i := range s.Sides {
		var rows arrow.RecordBatch
		if len(snap.IPC[i]) > 0 {
			r, err := ipc.NewReader(bytes.NewReader(snap.IPC[i]), ipc.WithAllocator(memory.DefaultAllocator))
			if err != nil {
				return fmt.Errorf("join state: side %d: %w", i, err)
			}
			var parts []arrow.RecordBatch
			for r.Next() {
				rec := r.RecordBatch()
				rec.Retain()
				parts = append(parts, rec)
			}
			err = r.Err()
			r.Release()
			if err != nil {
				return fmt.Errorf("join state: side %d: %w", i, err)
			}
			if len(parts) == 1 {
				rows = parts[0]
			} else if len(parts) > 1 {
				for _, p := range parts {
					p.Release()
				}
				return fmt.Errorf("join state: side %d holds %d record batches, want 1", i, len(parts))
			}
			// The rows take the schema the query has now, field metadata
			// included (the snapshot's shape check compared the rest).
			if rows != nil && !rows.Schema().Equal(s.schemas[i]) {
				fixed := array.NewRecordBatch(s.schemas[i], rows.Columns(), rows.NumRows())
				rows.Release()
				rows = fixed
			}
		}
		if rows != nil && int(rows.NumRows()) != len(snap.Matched[i]) {
			return fmt.Errorf("join state: side %d has %d rows and %d matched flags", i, rows.NumRows(), len(snap.Matched[i]))
		}
		s.Replace(i, rows, snap.Matched[i])
	}
	s.Watermarks, s.Seen = snap.Watermarks, snap.Seen
	return nil
}

// schemaShape is an Arrow schema's text (Schema.String) without its
// metadata lines: the column names, types and nullability the state holds.
// Metadata is left out because it describes the plan, not the rows: the
// watermark delay (which may change between restarts, as in Spark) and the
// client's plan ids (new in every run of a notebook cell, so that a query
// started again from its checkpoint found "other inputs").
func schemaShape(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "metadata:") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
