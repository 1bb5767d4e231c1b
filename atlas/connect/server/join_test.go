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
