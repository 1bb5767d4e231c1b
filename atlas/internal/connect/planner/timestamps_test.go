package planner

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// TestLocalRelationTimestampUnits: a LocalRelation's timestamp columns in
// milliseconds or seconds (the official Go client sends timestamp[ms,
// UTC]) become Spark's TimestampType, timestamp[us, UTC], with the same
// instants; one without a time zone stays TimestampNTZ, in microseconds.
// They used to come back in the unit sent.
func TestLocalRelationTimestampUnits(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 30, 15, 0, time.UTC)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ms", Type: arrow.FixedWidthTypes.Timestamp_ms, Nullable: true},
		{Name: "s", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Amsterdam"}, Nullable: true},
		{Name: "ntz", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(at.UnixMilli()))
	b.Field(0).(*array.TimestampBuilder).AppendNull()
	b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(at.Unix()))
	b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(at.Unix() + 60))
	b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(at.UnixMilli()))
	b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(at.UnixMilli() + 1))
	b.Field(3).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	data, err := WriteIPC(schema, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	p := newPlanner(t)
	df, err := p.Relation(context.Background(), &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	out, recs, err := df.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	utc := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	ntz := &arrow.TimestampType{Unit: arrow.Microsecond}
	for i, want := range []arrow.DataType{utc, utc, ntz, arrow.PrimitiveTypes.Int64} {
		if got := out.Field(i).Type; !arrow.TypeEqual(got, want) {
			t.Errorf("column %s is %s, want %s", out.Field(i).Name, got, want)
		}
	}
	us := at.UnixMicro()
	wants := [][]any{{us, nil}, {us, us + 60_000_000}, {us, us + 1000}}
	for c, want := range wants {
		col := recs[0].Column(c).(*array.Timestamp)
		for r, w := range want {
			if w == nil {
				if !col.IsNull(r) {
					t.Errorf("%s row %d: %v, want null", out.Field(c).Name, r, col.Value(r))
				}
				continue
			}
			if col.IsNull(r) || int64(col.Value(r)) != w.(int64) {
				t.Errorf("%s row %d: %v, want %d", out.Field(c).Name, r, col.Value(r), w)
			}
		}
	}
	for _, r := range recs {
		r.Release()
	}
}
