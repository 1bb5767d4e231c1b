package lakehouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
)

// alignRecords returns records rebuilt on the table's Arrow schema target:
// columns are matched by name (exactly, else case-insensitively when that is
// unambiguous) and put in table order; a column whose type differs is cast
// when the cast is a widening Spark's store assignment allows (int to a
// wider int or to double, float to double, large to plain string/binary,
// any timestamp unit or zone to the table's timestamp, truncating below
// microseconds). A missing column, an extra column, a type that cannot be
// cast, or nulls in a required column is an error naming the column.
//
// Empty records are dropped. The input records are not released; the result
// holds its own references and must be released by the caller.
func alignRecords(ctx context.Context, tableName string, target *arrow.Schema, records []arrow.RecordBatch) (out []arrow.RecordBatch, err error) {
	defer func() {
		if err != nil {
			for _, r := range out {
				r.Release()
			}
			out = nil
		}
	}()
	for _, rec := range records {
		if rec == nil || rec.NumRows() == 0 {
			continue
		}
		r, err := alignRecord(ctx, tableName, target, rec)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func alignRecord(ctx context.Context, tableName string, target *arrow.Schema, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	src := rec.Schema()
	used := make([]bool, src.NumFields())
	cols := make([]arrow.Array, 0, target.NumFields())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, f := range target.Fields() {
		i, err := findColumn(src, f.Name)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", tableName, err)
		}
		if i < 0 {
			return nil, fmt.Errorf("table %s: column %q (%s) is missing from the written batch (batch columns: %s)", tableName, f.Name, f.Type, fieldNames(src))
		}
		used[i] = true
		col, err := castColumn(ctx, rec.Column(i), f)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", tableName, err)
		}
		cols = append(cols, col)
		if !f.Nullable && col.NullN() > 0 {
			return nil, fmt.Errorf("table %s: column %q is required (NOT NULL) but the batch holds %d null values", tableName, f.Name, col.NullN())
		}
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("table %s: the batch has column %q, which the table does not have (table columns: %s)", tableName, src.Field(i).Name, fieldNames(target))
		}
	}
	return array.NewRecordBatch(target, cols, rec.NumRows()), nil
}

// findColumn returns the index of the column named name in sc: an exact
// match, else the only case-insensitive match; -1 when there is none.
func findColumn(sc *arrow.Schema, name string) (int, error) {
	if idx := sc.FieldIndices(name); len(idx) == 1 {
		return idx[0], nil
	} else if len(idx) > 1 {
		return 0, fmt.Errorf("the batch has %d columns named %q", len(idx), name)
	}
	found := -1
	for i, f := range sc.Fields() {
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				return 0, fmt.Errorf("the batch has columns %q and %q, both matching column %q", sc.Field(found).Name, f.Name, name)
			}
			found = i
		}
	}
	return found, nil
}

// castColumn returns col as the type of f (a new reference either way).
func castColumn(ctx context.Context, col arrow.Array, f arrow.Field) (arrow.Array, error) {
	from, to := col.DataType(), f.Type
	if arrow.TypeEqual(from, to) {
		col.Retain()
		return col, nil
	}
	if !castAllowed(from, to) {
		return nil, fmt.Errorf("column %q has type %s in the batch but %s in the table", f.Name, from, to)
	}
	opts := compute.SafeCastOptions(to)
	opts.AllowTimeTruncate = true
	out, err := compute.CastArray(ctx, col, opts)
	if err != nil {
		return nil, fmt.Errorf("column %q: cast %s to the table's %s: %w", f.Name, from, to, err)
	}
	return out, nil
}

// castAllowed reports whether a batch column of type from may be written to
// a table column of type to.
func castAllowed(from, to arrow.DataType) bool {
	switch to.ID() {
	case arrow.TIMESTAMP:
		return from.ID() == arrow.TIMESTAMP
	case arrow.INT64:
		switch from.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.UINT8, arrow.UINT16, arrow.UINT32:
			return true
		}
	case arrow.INT32:
		switch from.ID() {
		case arrow.INT8, arrow.INT16, arrow.UINT8, arrow.UINT16:
			return true
		}
	case arrow.FLOAT64:
		switch from.ID() {
		case arrow.FLOAT32, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
			arrow.UINT8, arrow.UINT16, arrow.UINT32:
			return true
		}
	case arrow.STRING:
		return from.ID() == arrow.LARGE_STRING
	case arrow.BINARY:
		return from.ID() == arrow.LARGE_BINARY
	case arrow.DATE32:
		return from.ID() == arrow.DATE64
	}
	return false
}

func fieldNames(sc *arrow.Schema) string {
	names := make([]string, sc.NumFields())
	for i, f := range sc.Fields() {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}
