package server

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// abv is one row of the local relation (a string, b timestamp, v bigint).
type abv struct {
	a string
	b string // "hh:mm:ss" on 2021-01-01
	v int64
}

// localRelation encodes rows as PySpark's createDataFrame does: Arrow IPC
// in a LocalRelation.
func localRelation(t *testing.T, rows []abv) *pb.Relation {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	for _, r := range rows {
		ts, err := time.Parse("2006-01-02 15:04:05", "2021-01-01 "+r.b)
		if err != nil {
			t.Fatal(err)
		}
		bld.Field(0).(*array.StringBuilder).Append(r.a)
		bld.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMicro()))
		bld.Field(2).(*array.Int64Builder).Append(r.v)
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	data, err := planner.WriteIPC(schema, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data}}}
}

func dblLit(f float64) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Double{Double: f}}}}
}

func boolLit(b bool) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Boolean{Boolean: b}}}}
}

func exprString(s string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_ExpressionString_{ExpressionString: &pb.Expression_ExpressionString{Expression: s}}}
}

func groupBy(in *pb.Relation, keys []*pb.Expression, aggs ...*pb.Expression) *pb.Relation {
	return &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{
		Input: in, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY, GroupingExpressions: keys, AggregateExpressions: aggs,
	}}}
}

// sparkDocRows are the rows of Spark's session_window documentation
// examples, with a value column.
var sparkDocRows = []abv{{"A1", "00:00:00", 1}, {"A1", "00:04:30", 2}, {"A1", "00:10:00", 3}, {"A2", "00:01:00", 4}, {"A2", "00:04:30", 5}}

// TestSessionWindowOverConnect: groupBy(a, session_window(b, "5 minutes"))
// and the dynamic-gap form, as PySpark sends them, give the documented
// sessions.
func TestSessionWindowOverConnect(t *testing.T) {
	c := dial(t, startServer(t, t.TempDir()).Addr())
	in := localRelation(t, sparkDocRows[:4])
	sessions := func(rel *pb.Relation) []string {
		var out []string
		for _, l := range c.rows(rel) {
			out = append(out, l)
		}
		return out
	}
	render := func(a, start, end string, n int) string {
		return fmt.Sprintf("a=%s s=2021-01-01T%sZ e=2021-01-01T%sZ cnt=%d", a, start, end, n)
	}
	sel := func(agg *pb.Relation) *pb.Relation {
		return selectOf(agg, col("a"), as(col("session_window.start"), "s"), as(col("session_window.end"), "e"), col("cnt"))
	}
	static := groupBy(in, []*pb.Expression{col("a"), fn("session_window", col("b"), strLit("5 minutes"))}, as(fn("count", lit(1)), "cnt"))
	same(t, "session_window(b, '5 minutes')", sessions(sel(static)), []string{
		render("A1", "00:00:00", "00:09:30", 2), render("A1", "00:10:00", "00:15:00", 1), render("A2", "00:01:00", "00:06:00", 1),
	})
	dyn := groupBy(localRelation(t, sparkDocRows), []*pb.Expression{col("a"), fn("session_window", col("b"),
		exprString("CASE WHEN a = 'A1' THEN '5 minutes' WHEN a = 'A2' THEN '1 minute' ELSE '10 minutes' END"))},
		as(fn("count", lit(1)), "cnt"))
	dynWant := []string{
		render("A1", "00:00:00", "00:09:30", 2), render("A1", "00:10:00", "00:15:00", 1),
		render("A2", "00:01:00", "00:02:00", 1), render("A2", "00:04:30", "00:05:30", 1),
	}
	same(t, "session_window(b, CASE ...)", sessions(sel(dyn)), dynWant)
	// PySpark's session_window(b, when(a == "A1", "5 minutes").when(a ==
	// "A2", "1 minute").otherwise("10 minutes")).
	gap := fn("when", fn("==", col("a"), strLit("A1")), strLit("5 minutes"), fn("==", col("a"), strLit("A2")), strLit("1 minute"), strLit("10 minutes"))
	dynWhen := groupBy(localRelation(t, sparkDocRows), []*pb.Expression{col("a"), fn("session_window", col("b"), gap)}, as(fn("count", lit(1)), "cnt"))
	same(t, "session_window(b, when(...).otherwise(...))", sessions(sel(dynWhen)), dynWant)
}

// TestDeduplicateOverConnect: Deduplicate with column_names and with
// all_columns_as_keys keeps one row per key; within_watermark on a batch
// relation is refused as Spark refuses it.
func TestDeduplicateOverConnect(t *testing.T) {
	c := dial(t, startServer(t, t.TempDir()).Addr())
	rows := []abv{{"x", "00:00:00", 1}, {"x", "00:00:00", 1}, {"x", "00:01:00", 2}, {"y", "00:00:00", 3}, {"y", "00:00:00", 3}}
	in := localRelation(t, rows)
	dedup := func(d *pb.Deduplicate) *pb.Relation {
		d.Input = in
		return &pb.Relation{RelType: &pb.Relation_Deduplicate{Deduplicate: d}}
	}
	same(t, "dropDuplicates(['a'])", c.rows(selectOf(dedup(&pb.Deduplicate{ColumnNames: []string{"a"}}), col("a"), col("v"))), []string{"a=x v=1", "a=y v=3"})
	same(t, "dropDuplicates()", c.rows(selectOf(dedup(&pb.Deduplicate{AllColumnsAsKeys: ptr(true)}), col("a"), col("v"))), []string{"a=x v=1", "a=x v=2", "a=y v=3"})
	_, err := c.tryRows(dedup(&pb.Deduplicate{ColumnNames: []string{"a"}, WithinWatermark: ptr(true)}))
	if err == nil || !strings.Contains(err.Error(), "dropDuplicatesWithinWatermark is not supported with batch DataFrames/DataSets") {
		t.Fatalf("within_watermark on a batch relation: %v", err)
	}
}

// TestAggregatesOverConnect: count(DISTINCT), approx_count_distinct with
// rsd, collect_list, first/last with ignorenulls, percentile_approx with
// one percentage and an array, stddev, against values computed here.
func TestAggregatesOverConnect(t *testing.T) {
	c := dial(t, startServer(t, t.TempDir()).Addr())
	var rows []abv
	for i := range 60 {
		rows = append(rows, abv{a: fmt.Sprintf("g%d", i%2), b: fmt.Sprintf("00:%02d:00", i%7), v: int64(i % 13)})
	}
	distinct := fn("count", col("v"))
	distinct.GetUnresolvedFunction().IsDistinct = true
	rel := groupBy(localRelation(t, rows), []*pb.Expression{col("a")},
		as(distinct, "nd"),
		as(fn("approx_count_distinct", col("v"), dblLit(0.05)), "approx"),
		as(fn("percentile_approx", col("v"), dblLit(0.5), lit(10000)), "median"),
		as(fn("percentile_approx", col("v"), fn("array", dblLit(0.25), dblLit(0.75)), lit(10000)), "quartiles"),
		as(fn("first", col("v"), boolLit(true)), "first"),
		as(fn("last", col("v"), boolLit(false)), "last"),
		as(fn("stddev", col("v")), "sd"),
	)
	var want []string
	for _, g := range []string{"g0", "g1"} {
		var vs []int64
		set := map[int64]bool{}
		for _, r := range rows {
			if r.a == g {
				vs = append(vs, r.v)
				set[r.v] = true
			}
		}
		first, last := vs[0], vs[len(vs)-1]
		var mean, ss float64
		for _, v := range vs {
			mean += float64(v)
		}
		mean /= float64(len(vs))
		for _, v := range vs {
			ss += (float64(v) - mean) * (float64(v) - mean)
		}
		sd := math.Sqrt(ss / float64(len(vs)-1))
		sorted := append([]int64(nil), vs...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		// With accuracy 10000 and 30 rows the summary is exact: the
		// value at rank ceil(p*n).
		at := func(p float64) int64 { return sorted[int(math.Ceil(p*float64(len(sorted))))-1] }
		want = append(want, fmt.Sprintf("a=%s nd=%d approx=%d median=%d quartiles=[%d,%d] first=%d last=%d sd=%s",
			g, len(set), len(set), at(0.5), at(0.25), at(0.75), first, last, fmtFloat(sd)))
	}
	got := c.rows(rel)
	// stddev's last digits depend on the summation order: compare it to
	// 1e-12 and everything else exactly.
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		gi, wi := strings.LastIndex(got[i], " sd="), strings.LastIndex(want[i], " sd=")
		if got[i][:gi] != want[i][:wi] {
			t.Errorf("got  %s\nwant %s", got[i], want[i])
			continue
		}
		var gs, ws float64
		fmt.Sscan(got[i][gi+4:], &gs)
		fmt.Sscan(want[i][wi+4:], &ws)
		if math.Abs(gs-ws) > 1e-12 {
			t.Errorf("sd %v, want %v", gs, ws)
		}
	}
}
