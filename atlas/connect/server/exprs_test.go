package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

func slit(s string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_String_{String_: s}}}}
}

func intervalLit(d time.Duration) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_DayTimeInterval{DayTimeInterval: d.Microseconds()}}}}
}

func castInt(e *pb.Expression) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Cast_{Cast: &pb.Expression_Cast{Expr: e, CastToType: &pb.Expression_Cast_TypeStr{TypeStr: "int"}}}}
}

// TestExpressionFunctions sends the UnresolvedFunctions PySpark's Connect
// client builds for F.when(...).when(...).otherwise(...), the district
// lab's F.element_at(F.array(F.lit(...), ...), (col % 4 + 1).cast("int")),
// concat, upper, split, to_timestamp/date_format and a timedelta literal,
// and SQL with CASE, UNION ALL and WITH, against Go references.
func TestExpressionFunctions(t *testing.T) {
	home := t.TempDir()
	orders := seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())

	names := []string{"Gasabo", "Huye", "Musanze", "Rubavu"}
	var lits []*pb.Expression
	for _, n := range names {
		lits = append(lits, slit(n))
	}
	size := fn("when", fn(">", col("qty"), lit(6)), slit("big"), fn(">", col("qty"), lit(3)), slit("mid"), slit("small"))
	district := fn("element_at", fn("array", lits...), castInt(fn("+", fn("%", col("id"), lit(4)), lit(1))))
	code := fn("concat", fn("upper", col("country")), slit("-"), fn("element_at", fn("split", slit("a.b.c"), slit("\\."), &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Integer{Integer: -1}}}}), lit(2)))
	ts := fn("+", fn("to_timestamp", slit("05/03/2024 07:08"), slit("dd/MM/yyyy HH:mm")), intervalLit(10*time.Minute))
	rel := project(table("lakehouse.silver.orders"), col("id"), as(size, "size"), as(district, "district"), as(code, "code"),
		as(fn("date_format", ts, slit("yyyy-MM-dd HH:mm")), "at"))
	var want []string
	for _, o := range orders {
		s := "small"
		switch {
		case o.qty > 6:
			s = "big"
		case o.qty > 3:
			s = "mid"
		}
		want = append(want, fmt.Sprintf("id=%d size=%s district=%s code=%s-b at=2024-03-05 07:18", o.id, s, names[o.id%4], strings.ToUpper(o.country)))
	}
	same(t, "functions", c.rows(rel), want)

	// SQL: WITH, UNION ALL and simple CASE.
	perCountry := map[string]int64{}
	for _, o := range orders {
		perCountry[o.country] += o.qty
	}
	want = nil
	for k, n := range perCountry {
		label := "other"
		if k == "NL" {
			label = "home"
		}
		want = append(want, fmt.Sprintf("country=%s n=%d label=%s", k, n, label), fmt.Sprintf("country=%s n=0 label=zero", k))
	}
	same(t, "sql", c.rows(c.sql(`WITH t AS (SELECT country, sum(qty) AS n FROM lakehouse.silver.orders GROUP BY country)
		SELECT country, n, CASE country WHEN 'NL' THEN 'home' ELSE 'other' END AS label FROM t
		UNION ALL SELECT country, 0, 'zero' FROM t`)), want)

	// ANSI mode: an index beyond the array fails the query with Spark's error class.
	bad := project(table("lakehouse.silver.orders"), fn("element_at", fn("array", lits...), lit(9)))
	if _, err := c.tryRows(bad); err == nil || !strings.Contains(err.Error(), "INVALID_ARRAY_INDEX_IN_ELEMENT_AT") {
		t.Fatalf("element_at out of range: %v", err)
	}
}
