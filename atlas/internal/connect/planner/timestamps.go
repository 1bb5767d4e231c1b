package planner

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
)

// sparkTimestamp is the Arrow type of a column of Spark's TimestampType
// (microseconds, UTC, the session time zone Atlas fixes), or of
// TimestampNTZType when tz is "". ok is false when t is no timestamp or is
// already one.
func sparkTimestamp(t arrow.DataType) (arrow.DataType, bool) {
	ts, isTS := t.(*arrow.TimestampType)
	if !isTS {
		return nil, false
	}
	want := &arrow.TimestampType{Unit: arrow.Microsecond}
	if ts.TimeZone != "" {
		want.TimeZone = "UTC"
	}
	return want, !arrow.TypeEqual(ts, want)
}

// normalizeTimestamps turns the top-level timestamp columns of a local
// relation that are not in microseconds (the official Go client sends
// timestamp[ms, UTC]) into Spark's timestamp[us, UTC], as Spark's server
// reads them into TimestampType. Other relations are returned as they are,
// with their records retained.
func normalizeTimestamps(ctx context.Context, schema *arrow.Schema, recs []arrow.RecordBatch) (*arrow.Schema, []arrow.RecordBatch, error) {
	fields := schema.Fields()
	changed := false
	for i, f := range fields {
		if t, ok := sparkTimestamp(f.Type); ok {
			fields[i].Type, changed = t, true
		}
	}
	out := make([]arrow.RecordBatch, 0, len(recs))
	if !changed {
		for _, r := range recs {
			r.Retain()
			out = append(out, r)
		}
		return schema, out, nil
	}
	md := schema.Metadata()
	ns := arrow.NewSchema(fields, &md)
	release := func() {
		for _, r := range out {
			r.Release()
		}
	}
	for _, r := range recs {
		cols := make([]arrow.Array, r.NumCols())
		for i := range cols {
			c := r.Column(i)
			if arrow.TypeEqual(c.DataType(), fields[i].Type) {
				c.Retain()
				cols[i] = c
				continue
			}
			cast, err := compute.CastArray(ctx, c, compute.SafeCastOptions(fields[i].Type))
			if err != nil {
				for _, d := range cols[:i] {
					d.Release()
				}
				release()
				return nil, nil, fmt.Errorf("local relation: column %s (%s) as %s: %w", fields[i].Name, c.DataType(), fields[i].Type, err)
			}
			cols[i] = cast
		}
		out = append(out, array.NewRecordBatch(ns, cols, r.NumRows()))
		for _, c := range cols {
			c.Release()
		}
	}
	return ns, out, nil
}
