package server

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/tablecss"
)

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// perCountry aggregates orders passing keep in plain Go: rows, sum(qty), max(price).
func perCountry(orders []order, keep func(order) bool) map[string][3]float64 {
	out := map[string][3]float64{}
	for _, o := range orders {
		if !keep(o) {
			continue
		}
		a, ok := out[o.country]
		if !ok {
			a[2] = o.price
		}
		a[0]++
		a[1] += float64(o.qty)
		a[2] = max(a[2], o.price)
		out[o.country] = a
	}
	return out
}

func TestSQLOverLakehouseTable(t *testing.T) {
	home := t.TempDir()
	orders := seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())

	got := c.rows(c.sql("SELECT country, count(*) AS n, sum(qty) AS q FROM lakehouse.silver.orders WHERE price > 3 GROUP BY country"))
	var want []string
	for k, a := range perCountry(orders, func(o order) bool { return o.price > 3 }) {
		want = append(want, fmt.Sprintf("country=%s n=%d q=%d", k, int64(a[0]), int64(a[1])))
	}
	same(t, "SQL GROUP BY", got, want)

	got = c.rows(c.sql("SHOW TABLES IN lakehouse.silver"))
	same(t, "SHOW TABLES", got, []string{"namespace=silver tableName=orders isTemporary=false"})
}

func TestDataFrameRelations(t *testing.T) {
	home := t.TempDir()
	orders := seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())

	// table(...).filter(qty > 3).groupBy(country).agg(count(1) as n,
	// sum(qty) as q, max(price) as mx).orderBy(country).limit(3)
	filtered := &pb.Relation{RelType: &pb.Relation_Filter{Filter: &pb.Filter{
		Input: table("lakehouse.silver.orders"), Condition: fn(">", col("qty"), lit(3)),
	}}}
	agg := &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{
		Input: filtered, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY,
		GroupingExpressions:  []*pb.Expression{col("country")},
		AggregateExpressions: []*pb.Expression{as(fn("count", lit(1)), "n"), as(fn("sum", col("qty")), "q"), as(fn("max", col("price")), "mx")},
	}}}
	sorted := &pb.Relation{RelType: &pb.Relation_Sort{Sort: &pb.Sort{Input: agg, Order: []*pb.Expression_SortOrder{{
		Child: col("country"), Direction: pb.Expression_SortOrder_SORT_DIRECTION_ASCENDING, NullOrdering: pb.Expression_SortOrder_SORT_NULLS_FIRST,
	}}}}}
	limited := &pb.Relation{RelType: &pb.Relation_Limit{Limit: &pb.Limit{Input: sorted, Limit: 3}}}

	per := perCountry(orders, func(o order) bool { return o.qty > 3 })
	keys := make([]string, 0, len(per))
	for k := range per {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var want []string
	for _, k := range keys[:3] {
		a := per[k]
		want = append(want, fmt.Sprintf("country=%s n=%d q=%d mx=%s", k, int64(a[0]), int64(a[1]), fmtFloat(a[2])))
	}
	same(t, "filter/groupBy/agg/orderBy/limit", c.rows(limited), want)

	// df.count() as the Go client sends it: groupBy().agg(count(lit(1)).alias("count")).
	count := &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{
		Input: filtered, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY,
		AggregateExpressions: []*pb.Expression{as(fn("count", lit(1)), "count")},
	}}}
	n := 0
	for _, o := range orders {
		if o.qty > 3 {
			n++
		}
	}
	same(t, "count", c.rows(count), []string{fmt.Sprintf("count=%d", n)})

	// select(id, price * 2 as twice).where("id <= 2") via a SQL expression string.
	proj := &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{
		Input: &pb.Relation{RelType: &pb.Relation_Filter{Filter: &pb.Filter{Input: table("lakehouse.silver.orders"),
			Condition: &pb.Expression{ExprType: &pb.Expression_ExpressionString_{ExpressionString: &pb.Expression_ExpressionString{Expression: "id <= 2"}}}}}},
		Expressions: []*pb.Expression{col("id"), as(fn("*", col("price"), lit(2)), "twice")},
	}}}
	same(t, "project", c.rows(proj), []string{
		"id=1 twice=" + fmtFloat(orders[0].price*2), "id=2 twice=" + fmtFloat(orders[1].price*2),
	})
}

func TestShowString(t *testing.T) {
	home := t.TempDir()
	orders := seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())
	counts := map[string]int{}
	for _, o := range orders {
		counts[o.country]++
	}
	rel := &pb.Relation{RelType: &pb.Relation_ShowString{ShowString: &pb.ShowString{
		Input: c.sql("SELECT country, count(*) AS n FROM lakehouse.silver.orders GROUP BY country ORDER BY country"), NumRows: 2, Truncate: 20,
	}}}
	got := c.rows(rel)
	want := "show_string=+-------+---+\n|country|  n|\n+-------+---+\n" +
		fmt.Sprintf("|     BE|%3d|\n|     DE|%3d|\n", counts["BE"], counts["DE"]) +
		"+-------+---+\nonly showing top 2 rows\n"
	same(t, "show", got, []string{want})
}

// TestHtmlString: a notebook's rendering of a DataFrame (Spark's
// HtmlString relation) is one row, html_string: the table of the first
// num_rows rows, numbers right-aligned, the footer when rows were left out.
func TestHtmlString(t *testing.T) {
	home := t.TempDir()
	orders := seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())
	counts := map[string]int{}
	for _, o := range orders {
		counts[o.country]++
	}
	rel := &pb.Relation{RelType: &pb.Relation_HtmlString{HtmlString: &pb.HtmlString{
		Input: c.sql("SELECT country, count(*) AS n FROM lakehouse.silver.orders GROUP BY country ORDER BY country"), NumRows: 2, Truncate: 20,
	}}}
	got := c.rows(rel)
	want := "html_string=" + tablecss.Style + `<table class="atlas-table"><thead><tr><th>country</th><th>n</th></tr></thead><tbody>` +
		fmt.Sprintf(`<tr><td>BE</td><td class="num">%d</td></tr><tr><td>DE</td><td class="num">%d</td></tr>`, counts["BE"], counts["DE"]) +
		`</tbody><tfoot><tr><td colspan="2">only showing top 2 rows</td></tr></tfoot></table>`
	same(t, "html", got, []string{want})
}

func TestAnalyzeSchema(t *testing.T) {
	home := t.TempDir()
	seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())
	resp, err := c.rpc.AnalyzePlan(context.Background(), &pb.AnalyzePlanRequest{
		SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
		Analyze: &pb.AnalyzePlanRequest_Schema_{Schema: &pb.AnalyzePlanRequest_Schema{Plan: &pb.Plan{OpType: &pb.Plan_Root{Root: table("lakehouse.silver.orders")}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range resp.GetSchema().GetSchema().GetStruct().GetFields() {
		got = append(got, f.GetName()+":"+string(f.GetDataType().ProtoReflect().WhichOneof(f.GetDataType().ProtoReflect().Descriptor().Oneofs().ByName("kind")).Name()))
	}
	if strings.Join(got, " ") != "id:long country:string qty:long price:double" {
		t.Fatalf("schema %v", got)
	}
}

func TestErrors(t *testing.T) {
	home := t.TempDir()
	c := dial(t, startServer(t, home).Addr())
	cases := []struct {
		rel  *pb.Relation
		code codes.Code
		msg  string
	}{
		{table("lakehouse.silver.missing"), codes.NotFound, "[TABLE_OR_VIEW_NOT_FOUND]"},
		{&pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{Input: table("a"), GroupType: pb.Aggregate_GROUP_TYPE_PIVOT}}}, codes.Unimplemented, "GROUP_TYPE_PIVOT"},
		{&pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELEC 1"}}}, codes.InvalidArgument, "line 1"},
		{&pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SHOW NAMESPACES"}}}, Expressions: []*pb.Expression{fn("no_such_function", col("a"))}}}}, codes.InvalidArgument, "[UNRESOLVED_ROUTINE]"},
		{&pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SHOW NAMESPACES"}}}, Expressions: []*pb.Expression{fn("percentile", col("a"))}}}}, codes.InvalidArgument, "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION]"},
	}
	for _, tc := range cases {
		_, err := c.tryRows(tc.rel)
		st, _ := status.FromError(err)
		if st.Code() != tc.code || !strings.Contains(st.Message(), tc.msg) {
			t.Errorf("%v: got %v %q, want %v containing %q", tc.rel, st.Code(), st.Message(), tc.code, tc.msg)
		}
	}
}

func TestTempViewsPerSession(t *testing.T) {
	home := t.TempDir()
	addr := startServer(t, home).Addr()
	a, b := dial(t, addr), dial(t, addr)

	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.BinaryTypes.String}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	bld.Field(0).(*array.StringBuilder).AppendValues([]string{"x", "y", "z"}, nil)
	bld.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	rec := bld.NewRecordBatch()
	bld.Release()
	data, err := planner.WriteIPC(schema, []arrow.RecordBatch{rec})
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	local := &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data}}}
	if _, err := a.execute(&pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{CommandType: &pb.Command_CreateDataframeView{
		CreateDataframeView: &pb.CreateDataFrameViewCommand{Input: local, Name: "kv", Replace: true},
	}}}}); err != nil {
		t.Fatal(err)
	}
	same(t, "view in its session", a.rows(a.sql("SELECT k, v FROM kv WHERE v > 1")), []string{"k=y v=2", "k=z v=3"})
	if _, err := b.tryRows(&pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT k FROM kv"}}}); err == nil || !strings.Contains(err.Error(), "kv") {
		t.Fatalf("another session sees the view: %v", err)
	}
}

func TestConfig(t *testing.T) {
	c := dial(t, startServer(t, t.TempDir()).Addr())
	conf := func(op *pb.ConfigRequest_Operation) (*pb.ConfigResponse, error) {
		return c.rpc.Config(context.Background(), &pb.ConfigRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"}, Operation: op})
	}
	v := "7"
	if _, err := conf(&pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{Pairs: []*pb.KeyValue{{Key: "spark.sql.shuffle.partitions", Value: &v}}}}}); err != nil {
		t.Fatal(err)
	}
	resp, err := conf(&pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Get{Get: &pb.ConfigRequest_Get{Keys: []string{"spark.sql.shuffle.partitions", "spark.sql.session.timeZone"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.GetPairs()[0].GetValue() + " " + resp.GetPairs()[1].GetValue(); got != "7 UTC" {
		t.Fatalf("get: %s", got)
	}
	if _, err := conf(&pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Unset{Unset: &pb.ConfigRequest_Unset{Keys: []string{"spark.sql.shuffle.partitions"}}}}); err != nil {
		t.Fatal(err)
	}
	_, err = conf(&pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Get{Get: &pb.ConfigRequest_Get{Keys: []string{"spark.sql.shuffle.partitions"}}}})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("get after unset: %v", err)
	}
}

// TestConfigMultipleWatermarkPolicy: spark.sql.streaming.multipleWatermarkPolicy
// takes Spark's two values, min (the default) and max, in any case; the
// engine honours both (atlas/sparkguide_real_test.go,
// TestGuideMultipleWatermarkPolicyMax). Another value is refused at set,
// as Spark's checkValues refuses it, instead of being stored and ignored.
func TestConfigMultipleWatermarkPolicy(t *testing.T) {
	c := dial(t, startServer(t, t.TempDir()).Addr())
	set := func(v string) error {
		_, err := c.rpc.Config(context.Background(), &pb.ConfigRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
			Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{Pairs: []*pb.KeyValue{{Key: "spark.sql.streaming.multipleWatermarkPolicy", Value: &v}}}}}})
		return err
	}
	if err := set("fastest"); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "min, max") {
		t.Fatalf("set fastest: %v, want InvalidArgument naming min, max", err)
	}
	for _, v := range []string{"min", "MIN", "max"} {
		if err := set(v); err != nil {
			t.Fatalf("set %s: %v", v, err)
		}
	}
}
