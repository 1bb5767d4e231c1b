package planner

import (
	"context"
	"fmt"
	"testing"
	"time"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

func long(v int64) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Long{Long: v}}}}
}

func double(v float64) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Double{Double: v}}}}
}

func boolean(v bool) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Boolean{Boolean: v}}}}
}

// TestOrderedAggregatesOverConnect: df.agg(mode, median, percentile,
// max_by, try_sum, ...) as PySpark sends them, with Spark's column names
// and values worked out by hand over amounts 5 1 5 9.
func TestOrderedAggregatesOverConnect(t *testing.T) {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	defer s.Stop()
	p := &Planner{Session: s}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	in := events(t, []string{"ann", "bob", "cy", "dee"}, []time.Time{at, at, at, at}, []int64{5, 1, 5, 9})
	aggs := []*pb.Expression{
		call("mode", attr("amount"), boolean(false)),
		call("median", attr("amount")),
		call("percentile", attr("amount"), double(0.25), long(1)),
		call("max_by", attr("user"), attr("amount")),
		call("min_by", attr("user"), attr("amount"), long(2)),
		call("try_sum", attr("amount")),
	}
	rel := &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{
		Input: in, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY, AggregateExpressions: aggs,
	}}}
	df, err := p.Relation(context.Background(), rel)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := df.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	// sorted 1 5 5 9: median at 1.5 is 5; 0.25 at 0.75 is 0.25*1 + 0.75*5 = 4.
	for name, want := range map[string]string{
		"mode(amount)": "5", "median(amount)": "5", "percentile(amount, 0.25, 1)": "4",
		"max_by(user, amount)": "dee", "min_by(user, amount, 2)": "[bob ann]", "try_sum(amount)": "20",
	} {
		v, ok := rows[0][name]
		if !ok {
			t.Errorf("no column %q in %v", name, rows[0])
			continue
		}
		if got := fmt.Sprint(v); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
}
