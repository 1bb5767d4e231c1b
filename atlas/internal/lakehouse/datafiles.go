package lakehouse

import (
	"context"
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// writeDataFiles aligns records to the table schema and writes them as
// Parquet data files of the cached table, all batches together: one rolling
// file per partition. This is the layout of an append, where a micro-batch
// arrives as many small record batches.
func (t *Table) writeDataFiles(ctx context.Context, records []arrow.RecordBatch) ([]iceberg.DataFile, error) {
	cur := t.cur.Load()
	target, err := arrowSchema(cur)
	if err != nil {
		return nil, err
	}
	aligned, err := alignRecords(ctx, t.name, target, records)
	if err != nil {
		return nil, err
	}
	files, err := t.writeRecords(ctx, cur, target, aligned)
	if err != nil {
		return nil, fmt.Errorf("write data files: %w", err)
	}
	return files, nil
}

// writeParallelism bounds the data files written at the same time: Parquet
// encoding and compression are CPU-bound.
func writeParallelism() int { return max(2, runtime.GOMAXPROCS(0)) }

// writeRecords writes aligned records (already on the schema target of cur)
// with iceberg-go's WriteRecords and releases them. On error the files
// written so far are deleted.
func (t *Table) writeRecords(ctx context.Context, cur *table.Table, target *arrow.Schema, aligned []arrow.RecordBatch) ([]iceberg.DataFile, error) {
	if len(aligned) == 0 {
		return nil, nil
	}
	next := 0 // WriteRecords releases every batch it consumes
	defer func() {
		for _, r := range aligned[next:] {
			r.Release()
		}
	}()
	seq := func(yield func(arrow.RecordBatch, error) bool) {
		for next < len(aligned) {
			r := aligned[next]
			next++
			if !yield(r, nil) {
				return
			}
		}
	}
	var files []iceberg.DataFile
	for df, err := range table.WriteRecords(ctx, cur, target, seq) {
		if err != nil {
			t.removeFiles(files)
			return nil, err
		}
		files = append(files, df)
	}
	return files, nil
}
