package lakehouse

import (
	"context"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// ScanOptions select what Scan reads.
type ScanOptions struct {
	// Filter keeps the rows it matches (nil: all rows). Files and row
	// groups whose statistics cannot match are skipped; the remaining rows
	// are filtered exactly.
	Filter iceberg.BooleanExpression
	// Columns are the columns to read, in table order (nil: all).
	Columns []string
	// SnapshotID reads that snapshot instead of the current one (time
	// travel, VERSION AS OF).
	SnapshotID int64
	// Limit stops after this many rows (0: no limit).
	Limit int64
}

// icebergScan builds the iceberg-go scan for opts on the table state cur.
func icebergScan(cur *table.Table, opts ScanOptions) *table.Scan {
	so := []table.ScanOption{}
	if opts.Filter != nil {
		so = append(so, table.WithRowFilter(opts.Filter))
	}
	if len(opts.Columns) > 0 {
		so = append(so, table.WithSelectedFields(opts.Columns...))
	}
	if opts.SnapshotID != 0 {
		so = append(so, table.WithSnapshotID(opts.SnapshotID))
	}
	if opts.Limit > 0 {
		so = append(so, table.WithLimit(opts.Limit))
	}
	return cur.Scan(so...)
}

// Records streams the rows opts select from the cached table state (call
// Refresh first to see other writers' commits). It returns the Arrow schema
// of the result, known even when no row matches, and a single-use iterator
// of record batches, each owned by the caller. A table that was never
// written yields no batch. A read error names the damaged data file
// behind it.
func (t *Table) Records(ctx context.Context, opts ScanOptions) (*arrow.Schema, iter.Seq2[arrow.RecordBatch, error], error) {
	cur := t.cur.Load()
	scan := icebergScan(cur, opts)
	sc, recs, err := scan.ToArrowRecords(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("lakehouse: scan %s: %w", t.name, explainReadError(ctx, cur, scanPaths(ctx, scan), err))
	}
	return sc, t.explainRecords(ctx, cur, scan, recs), nil
}

// Scan reads the rows opts select (see Records) into memory. The caller
// owns the batches; with the default Go allocator, dropping them is enough.
func (t *Table) Scan(ctx context.Context, opts ScanOptions) (*arrow.Schema, []arrow.RecordBatch, error) {
	sc, recs, err := t.Records(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	out, err := collect(recs)
	if err != nil {
		return nil, nil, err // already says "lakehouse: scan <table>"
	}
	return sc, out, nil
}

// ReadAll reads every row of the table's current snapshot.
func (t *Table) ReadAll(ctx context.Context) ([]arrow.RecordBatch, error) {
	_, out, err := t.Scan(ctx, ScanOptions{})
	return out, err
}

// collect drains a record iterator, releasing what it read on error.
func collect(recs iter.Seq2[arrow.RecordBatch, error]) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for r, err := range recs {
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			return nil, err
		}
		if r.NumRows() == 0 {
			r.Release()
			continue
		}
		out = append(out, r)
	}
	return out, nil
}
