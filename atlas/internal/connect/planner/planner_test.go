package planner

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// events is a local relation of (user string, ts timestamp, amount bigint)
// rows, as a client sends spark.createDataFrame.
func events(t *testing.T, users []string, ts []time.Time, amounts []int64) *pb.Relation {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "user", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: types.Timestamp},
		{Name: "amount", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues(users, nil)
	for _, x := range ts {
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(x.UnixMicro()))
	}
	b.Field(2).(*array.Int64Builder).AppendValues(amounts, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	data, err := WriteIPC(schema, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data}}}
}

func attr(name string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_UnresolvedAttribute_{UnresolvedAttribute: &pb.Expression_UnresolvedAttribute{UnparsedIdentifier: name}}}
}

func str(s string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_String_{String_: s}}}}
}

func call(name string, args ...*pb.Expression) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_UnresolvedFunction_{UnresolvedFunction: &pb.Expression_UnresolvedFunction{FunctionName: name, Arguments: args}}}
}

func aliasOf(e *pb.Expression, name string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Alias_{Alias: &pb.Expression_Alias{Expr: e, Name: []string{name}}}}
}

// TestWindowAggregate: groupBy(window(ts, "10 minutes"), user).agg(sum,
// count) as PySpark sends it, against buckets computed in Go.
func TestWindowAggregate(t *testing.T) {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	defer s.Stop()
	p := &Planner{Session: s}
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var users []string
	var ts []time.Time
	var amounts []int64
	type key struct {
		start time.Time
		user  string
	}
	want := map[key][2]int64{}
	for i := range 60 {
		u := []string{"ann", "bob", "cy"}[i%3]
		at := base.Add(time.Duration(i*i%97) * time.Minute)
		users, ts, amounts = append(users, u), append(ts, at), append(amounts, int64(i))
		k := key{at.Truncate(10 * time.Minute), u}
		w := want[k]
		w[0] += int64(i)
		w[1]++
		want[k] = w
	}
	rel := &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{
		Input: events(t, users, ts, amounts), GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY,
		GroupingExpressions:  []*pb.Expression{call("window", attr("ts"), str("10 minutes")), attr("user")},
		AggregateExpressions: []*pb.Expression{aliasOf(call("sum", attr("amount")), "total"), aliasOf(call("count", attr("*")), "n")},
	}}}
	// select(window.start, user, total, n)
	rel = &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: rel, Expressions: []*pb.Expression{
		aliasOf(attr("window.start"), "start"), attr("user"), attr("total"), attr("n"),
	}}}}
	df, err := p.Relation(context.Background(), rel)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := df.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got, exp []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%v %v %v %v", r["start"].(time.Time).UTC().Format("15:04"), r["user"], r["total"], r["n"]))
	}
	for k, v := range want {
		exp = append(exp, fmt.Sprintf("%s %s %d %d", k.start.Format("15:04"), k.user, v[0], v[1]))
	}
	sort.Strings(got)
	sort.Strings(exp)
	if strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(exp, "\n"))
	}
}

// TestUnsupportedNamesTheMessage: what Atlas does not implement fails as
// UnsupportedError naming the relation or function.
func TestUnsupportedNamesTheMessage(t *testing.T) {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	defer s.Stop()
	p := &Planner{Session: s}
	in := events(t, []string{"a"}, []time.Time{time.Unix(0, 0)}, []int64{1})
	for _, tc := range []struct {
		rel  *pb.Relation
		want string
	}{
		{&pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: in, Expressions: []*pb.Expression{call("xpath_string", attr("user"))}}}}, "function xpath_string"},
		{&pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{Input: in, GroupType: pb.Aggregate_GROUP_TYPE_PIVOT}}}, "GROUP_TYPE_PIVOT"},
		{&pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{Input: in, GroupType: pb.Aggregate_GROUP_TYPE_CUBE,
			GroupingExpressions: []*pb.Expression{attr("user"), attr("user"), attr("user"), attr("user"), attr("user"), attr("user"), attr("user")}}}}, "cube over 7 columns"},
	} {
		_, err := p.Relation(context.Background(), tc.rel)
		if !IsUnsupported(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an UnsupportedError naming %q", tc.rel, err, tc.want)
		}
	}
}
