package server

import (
	"fmt"
	"strings"
	"testing"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

func subqueryAlias(rel *pb.Relation, name string) *pb.Relation {
	return &pb.Relation{RelType: &pb.Relation_SubqueryAlias{SubqueryAlias: &pb.SubqueryAlias{Input: rel, Alias: name}}}
}

// TestJoinRelation sends the Join relations PySpark's Connect client builds
// for df.join(other, "country", "left") (using_columns) and
// a.join(b, cond) over aliases (join_condition), against Go references.
func TestJoinRelation(t *testing.T) {
	home := t.TempDir()
	orders := seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())

	// big: countries with an order of qty 9 and price below 3.
	big := c.sql("SELECT country, count(*) AS n FROM lakehouse.silver.orders WHERE qty = 9 AND price < 3 GROUP BY country")
	hinted := &pb.Relation{RelType: &pb.Relation_Hint{Hint: &pb.Hint{Input: big, Name: "broadcast"}}}
	using := &pb.Relation{RelType: &pb.Relation_Join{Join: &pb.Join{
		Left: table("lakehouse.silver.orders"), Right: hinted,
		JoinType: pb.Join_JOIN_TYPE_LEFT_OUTER, UsingColumns: []string{"country"},
	}}}
	bigN := map[string]int{}
	for _, o := range orders {
		if o.qty == 9 && o.price < 3 {
			bigN[o.country]++
		}
	}
	var want []string
	for _, o := range orders {
		n := "null"
		if v, ok := bigN[o.country]; ok {
			n = fmt.Sprint(v)
		}
		want = append(want, fmt.Sprintf("country=%s id=%d n=%s", o.country, o.id, n))
	}
	same(t, "join using country, left outer", c.rows(selectOf(using, col("country"), col("id"), col("n"))), want)

	// a.join(b, (a.id + 1 == b.id) & (b.qty > a.qty)) over aliases a and b.
	cond := fn("and", fn("==", fn("+", col("a.id"), lit(1)), col("b.id")), fn(">", col("b.qty"), col("a.qty")))
	onCond := &pb.Relation{RelType: &pb.Relation_Join{Join: &pb.Join{
		Left: subqueryAlias(table("lakehouse.silver.orders"), "a"), Right: subqueryAlias(table("lakehouse.silver.orders"), "b"),
		JoinType: pb.Join_JOIN_TYPE_INNER, JoinCondition: cond,
	}}}
	want = nil
	for _, a := range orders {
		for _, b := range orders {
			if a.id+1 == b.id && b.qty > a.qty {
				want = append(want, fmt.Sprintf("id=%d bid=%d", a.id, b.id))
			}
		}
	}
	same(t, "join on a condition", c.rows(selectOf(onCond, col("a.id"), as(col("b.id"), "bid"))), want)

	// An unspecified join type is refused by name.
	bad := &pb.Relation{RelType: &pb.Relation_Join{Join: &pb.Join{Left: table("lakehouse.silver.orders"), Right: big, UsingColumns: []string{"country"}}}}
	if _, err := c.tryRows(bad); err == nil || !strings.Contains(err.Error(), "JOIN_TYPE_UNSPECIFIED") {
		t.Fatalf("unspecified join type: %v", err)
	}
}

func project(rel *pb.Relation, es ...*pb.Expression) *pb.Relation { return selectOf(rel, es...) }

// colOf is df[name] as PySpark's Connect client sends it: the attribute
// with the plan id of the DataFrame it is taken from.
func colOf(name string, planID int64) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_UnresolvedAttribute_{UnresolvedAttribute: &pb.Expression_UnresolvedAttribute{UnparsedIdentifier: name, PlanId: &planID}}}
}

func withPlanID(rel *pb.Relation, id int64) *pb.Relation {
	rel.Common = &pb.RelationCommon{PlanId: &id}
	return rel
}

// TestJoinByPlanIDs: a.join(b, (a.id + 1 == b.id) & (b.qty > a.qty))
// .select(a.id, b.id.alias("bid")) over two DataFrames with the same
// columns and no alias, as PySpark sends it (each column with the plan id
// of its DataFrame), against a Go reference.
func TestJoinByPlanIDs(t *testing.T) {
	home := t.TempDir()
	orders := seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())
	a, b := withPlanID(table("lakehouse.silver.orders"), 11), withPlanID(table("lakehouse.silver.orders"), 12)
	cond := fn("and", fn("==", fn("+", colOf("id", 11), lit(1)), colOf("id", 12)), fn(">", colOf("qty", 12), colOf("qty", 11)))
	joined := withPlanID(&pb.Relation{RelType: &pb.Relation_Join{Join: &pb.Join{Left: a, Right: b, JoinType: pb.Join_JOIN_TYPE_INNER, JoinCondition: cond}}}, 13)
	var want []string
	for _, x := range orders {
		for _, y := range orders {
			if x.id+1 == y.id && y.qty > x.qty {
				want = append(want, fmt.Sprintf("id=%d bid=%d", x.id, y.id))
			}
		}
	}
	same(t, "join on plan-id columns", c.rows(selectOf(joined, colOf("id", 11), as(colOf("id", 12), "bid"))), want)
	// Without plan ids the same names are ambiguous, and the error says how to fix it.
	plain := &pb.Relation{RelType: &pb.Relation_Join{Join: &pb.Join{Left: table("lakehouse.silver.orders"), Right: table("lakehouse.silver.orders"),
		JoinType: pb.Join_JOIN_TYPE_INNER, JoinCondition: fn("==", col("id"), col("id"))}}}
	if _, err := c.tryRows(plain); err == nil || !strings.Contains(err.Error(), "AMBIGUOUS_REFERENCE") {
		t.Fatalf("ambiguous id: %v", err)
	}
}
