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

// cdcSchema is the CDC table's schema: key, last value merged, its time.
func cdcSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "ts", Type: types.Timestamp, Nullable: true},
	}, nil)
}

// check compares the table with the reference of the variant after
// batches 0..last, computed from the values the source generated (batch b
// holds values [b*R, (b+1)*R) at second b):
//   - append: every value exactly once;
//   - windows: the windows that closed (watermark = max event time - 10 s,
//     advanced at the end of each batch) each hold 10 seconds of rows;
//   - cdc: one row per key, holding the key's last value.
func check(ctx context.Context, s *engine.Session, name string, o Options, last int64) (string, error) {
	r := int64(o.RowsPerBatch)
	total := (last + 1) * r
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
	switch o.Variant {
	case Append:
		row, err := one("SELECT count(*) AS n, count(DISTINCT value) AS d, min(value) AS lo, max(value) AS hi FROM " + name)
		if err != nil {
			return "", err
		}
		if n(row["n"]) != total || n(row["d"]) != total || n(row["lo"]) != 0 || n(row["hi"]) != total-1 {
			return "", fmt.Errorf("soak check: %s holds %v rows (%v distinct, %v..%v), want the %d values 0..%d once each", name, row["n"], row["d"], row["lo"], row["hi"], total, total-1)
		}
		return fmt.Sprintf("%d rows, each value of 0..%d exactly once", total, total-1), nil
	case Windows:
		// Batch b's rows are at second b; after batch `last` the watermark
		// is last-10 s, so the windows [10k, 10k+10) with 10k+10 <= last-10
		// have closed.
		closed := max(0, (last-10)/10)
		row, err := one("SELECT count(*) AS n, min(count) AS lo, max(count) AS hi FROM " + name)
		if err != nil {
			return "", err
		}
		if n(row["n"]) != closed || closed > 0 && (n(row["lo"]) != 10*r || n(row["hi"]) != 10*r) {
			return "", fmt.Errorf("soak check: %s holds %v windows (counts %v..%v), want %d windows of %d rows", name, row["n"], row["lo"], row["hi"], closed, 10*r)
		}
		return fmt.Sprintf("%d closed windows of %d rows each", closed, 10*r), nil
	case CDC:
		k := int64(o.Keys)
		keys := min(k, total)
		var sum int64 // the last value of key i is the largest v < total with v % k == i
		for i := int64(0); i < keys; i++ {
			sum += i + (total-1-i)/k*k
		}
		row, err := one("SELECT count(*) AS n, count(DISTINCT id) AS d, sum(v) AS s FROM " + name)
		if err != nil {
			return "", err
		}
		if n(row["n"]) != keys || n(row["d"]) != keys || n(row["s"]) != sum {
			return "", fmt.Errorf("soak check: %s holds %v rows (%v keys, sum of values %v), want %d keys with their last values (sum %d)", name, row["n"], row["d"], row["s"], keys, sum)
		}
		return fmt.Sprintf("%d keys, each with its last value (sum %d)", keys, sum), nil
	}
	return "", fmt.Errorf("soak: unknown variant %q", o.Variant)
}
