package planner

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// ReadIPC decodes Arrow IPC stream bytes into their schema and records
// (released by the caller).
func ReadIPC(data []byte) (*arrow.Schema, []arrow.RecordBatch, error) {
	rd, err := ipc.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("read Arrow IPC stream: %w", err)
	}
	defer rd.Release()
	var recs []arrow.RecordBatch
	for {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) || (err == nil && rec == nil) {
			break
		}
		if err != nil {
			for _, r := range recs {
				r.Release()
			}
			return nil, nil, fmt.Errorf("read Arrow IPC stream: %w", err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	return rd.Schema(), recs, nil
}

// WriteIPC encodes records as one Arrow IPC stream (a LocalRelation's data).
func WriteIPC(schema *arrow.Schema, recs []arrow.RecordBatch) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			return nil, fmt.Errorf("encode Arrow IPC: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("encode Arrow IPC: %w", err)
	}
	return buf.Bytes(), nil
}
