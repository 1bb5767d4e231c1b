package soak

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source/rate"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// rateSchema is the append table's schema: the rate source's.
func rateSchema() *arrow.Schema { return rate.Schema }

// windowsSchema is the windows table's schema: window start, row count.
func windowsSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "window_start", Type: types.Timestamp, Nullable: true},
		{Name: "count", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
}

// cdcSchema is the CDC table's schema: key, last value merged, its time.
func cdcSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "ts", Type: types.Timestamp, Nullable: true},
	}, nil)
}

// check compares the table with the reference of the variant, computed
// from the values the source generated: batch b holds the values
// [b*R, (b+1)*R) at second b. The run stops its query after batch last;
// the batch in flight then may or may not have committed (atomically), so
// the reference takes the batches the table says were written, which must
// be last+1 or last+2:
//   - append: every value of those batches exactly once;
//   - windows: the windows that closed (the watermark of batch b is the
//     previous batch's max event time less 10 s) hold 10 seconds of rows;
//   - cdc: one row per key, holding the key's last value.
func check(ctx context.Context, s *engine.Session, name string, o Options, last int64) (string, error) {
	r := int64(o.RowsPerBatch)
	one := func(sql string) (map[string]any, error) {
		df, err := s.SQLContext(ctx, sql)
		if err != nil {
			return nil, err
		}
		rows, err := df.Rows(ctx)
		if err != nil || len(rows) != 1 {
			return nil, fmt.Errorf("soak check %q: %d rows, %v", sql, len(rows), err)
		}
		return rows[0], nil
	}
	n := func(v any) int64 { x, _ := v.(int64); return x }
	batches := func(written int64) (int64, error) {
		if written != last+1 && written != last+2 {
			return 0, fmt.Errorf("soak check: %s holds the rows of %d batches, want %d (or %d with the batch stopped in flight)", name, written, last+1, last+2)
		}
		return written, nil
	}
	switch o.Variant {
	case Append:
		row, err := one("SELECT count(*) AS n, count(DISTINCT value) AS d, min(value) AS lo, max(value) AS hi FROM " + name)
		if err != nil {
			return "", err
		}
		b, err := batches((n(row["hi"]) + 1) / r)
		if err != nil {
			return "", err
		}
		total := b * r
		if n(row["n"]) != total || n(row["d"]) != total || n(row["lo"]) != 0 || n(row["hi"]) != total-1 {
			return "", fmt.Errorf("soak check: %s holds %v rows (%v distinct, %v..%v), want the %d values 0..%d once each", name, row["n"], row["d"], row["lo"], row["hi"], total, total-1)
		}
		return fmt.Sprintf("%d rows, each value of 0..%d exactly once", total, total-1), nil
	case Windows:
		// After batch b (b >= 11) the windows [10k, 10k+10) ending at or
		// before b-1-10 have been emitted: (b-11)/10 of them.
		row, err := one("SELECT count(*) AS n, min(count) AS lo, max(count) AS hi, count(DISTINCT window_start) AS d FROM " + name)
		if err != nil {
			return "", err
		}
		closed := n(row["n"])
		if lo, hi := max(0, (last-11)/10), max(0, (last+1-11)/10); closed < lo || closed > hi {
			return "", fmt.Errorf("soak check: %s holds %d windows after batch %d, want %d..%d", name, closed, last, lo, hi)
		}
		if n(row["d"]) != closed || closed > 0 && (n(row["lo"]) != 10*r || n(row["hi"]) != 10*r) {
			return "", fmt.Errorf("soak check: %s holds %d windows (%v distinct, counts %v..%v), want windows of %d rows each once", name, closed, row["d"], row["lo"], row["hi"], 10*r)
		}
		return fmt.Sprintf("%d closed windows of %d rows each, each once", closed, 10*r), nil
	case CDC:
		row, err := one("SELECT count(*) AS n, count(DISTINCT id) AS d, sum(v) AS s, max(v) AS hi FROM " + name)
		if err != nil {
			return "", err
		}
		b, err := batches((n(row["hi"]) + 1) / r)
		if err != nil {
			return "", err
		}
		total, k := b*r, int64(o.Keys)
		keys := min(k, total)
		var sum int64 // the last value of key i is the largest v < total with v % k == i
		for i := int64(0); i < keys; i++ {
			sum += i + (total-1-i)/k*k
		}
		if n(row["n"]) != keys || n(row["d"]) != keys || n(row["s"]) != sum {
			return "", fmt.Errorf("soak check: %s holds %v rows (%v keys, sum of values %v), want %d keys with their last values (sum %d)", name, row["n"], row["d"], row["s"], keys, sum)
		}
		return fmt.Sprintf("%d keys, each with its last value after %d batches (sum %d)", keys, b, sum), nil
	}
	return "", fmt.Errorf("soak: unknown variant %q", o.Variant)
}
