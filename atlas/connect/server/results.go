package server

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// maxBatchBytes bounds the Arrow data of one ArrowBatch response, well
// under gRPC's default 4 MiB client receive limit (Spark: about 4 MiB * 0.7).
const maxBatchBytes = 2 << 20

// records sends rows as ArrowBatch responses, each an Arrow IPC stream of
// one record batch (what the Spark clients read), the first carrying the
// schema. An empty result is one batch of zero rows, so clients see the
// columns.
func (r *responder) records(schema *arrow.Schema, recs []arrow.RecordBatch) error {
	dt, err := planner.Schema(schema)
	if err != nil {
		return err
	}
	var chunks []arrow.RecordBatch
	for _, rec := range recs {
		chunks = append(chunks, split(rec, maxBatchBytes)...)
	}
	if len(chunks) == 0 {
		chunks = []arrow.RecordBatch{emptyRecord(schema)}
	}
	defer func() { release(chunks) }()
	var offset int64
	for i, c := range chunks {
		data, err := encodeIPC(schema, c)
		if err != nil {
			return err
		}
		start := offset
		resp := &pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_ArrowBatch_{ArrowBatch: &pb.ExecutePlanResponse_ArrowBatch{
			RowCount: c.NumRows(), Data: data, StartOffset: &start,
		}}}
		if i == 0 {
			resp.Schema = dt
		}
		if err := r.send(resp); err != nil {
			return err
		}
		offset += c.NumRows()
	}
	return nil
}

// split slices rec into record batches of about maxBytes each (retained;
// released by the caller).
func split(rec arrow.RecordBatch, maxBytes int64) []arrow.RecordBatch {
	n := rec.NumRows()
	if n == 0 {
		return nil
	}
	size := recordBytes(rec)
	rows := n
	if size > maxBytes {
		rows = max(1, n*maxBytes/size)
	}
	var out []arrow.RecordBatch
	for i := int64(0); i < n; i += rows {
		out = append(out, rec.NewSlice(i, min(n, i+rows)))
	}
	return out
}

// encodeIPC writes one record batch as an Arrow IPC stream.
func encodeIPC(schema *arrow.Schema, rec arrow.RecordBatch) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
	if err := w.Write(rec); err != nil {
		return nil, fmt.Errorf("encode Arrow IPC: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("encode Arrow IPC: %w", err)
	}
	return buf.Bytes(), nil
}

// emptyRecord is a record batch of schema without rows.
func emptyRecord(schema *arrow.Schema) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	return b.NewRecordBatch()
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// recordBytes is the size of a record batch's buffers.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}
