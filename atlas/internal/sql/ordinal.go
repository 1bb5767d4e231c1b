package sql

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// ordinal reports whether e is an integer literal, the position of a
// select-list column in ORDER BY 2 or GROUP BY 1 (spark.sql.orderByOrdinal
// and spark.sql.groupByOrdinal, both true by default in Spark 3.5 and 4.x).
func ordinal(e parser.Expr) (int64, bool) {
	lit, ok := e.(*parser.Literal)
	if !ok {
		return 0, false
	}
	switch lit.Kind {
	case parser.IntLiteral, parser.BigIntLiteral, parser.SmallIntLiteral, parser.TinyIntLiteral:
		n, ok := lit.Value.(int64)
		return n, ok
	}
	return 0, false
}

// orderByOrdinal is ORDER BY n: the n-th column of the query's output.
func orderByOrdinal(o *parser.OrderItem, n int64, out *arrow.Schema) (expr.Expr, error) {
	if n < 1 || n > int64(out.NumFields()) {
		return nil, errAt(o, "[ORDER_BY_POS_OUT_OF_RANGE] ORDER BY position %d is not in select list (valid range is [1, %d])", n, out.NumFields())
	}
	return &expr.ColumnRef{Parts: []string{out.Field(int(n - 1)).Name}}, nil
}

// withGroupByOrdinals returns sel with every GROUP BY n replaced by the
// n-th expression of the select list, as Spark resolves it; sel itself is
// left as parsed.
func withGroupByOrdinals(sel *parser.Select) (*parser.Select, error) {
	var out *parser.Select
	for i, g := range sel.GroupBy {
		n, ok := ordinal(g)
		if !ok {
			continue
		}
		if n < 1 || n > int64(len(sel.Items)) {
			return nil, errAt(g, "[GROUP_BY_POS_OUT_OF_RANGE] GROUP BY position %d is not in select list (valid range is [1, %d])", n, len(sel.Items))
		}
		it := sel.Items[n-1]
		if _, star := it.Expr.(*parser.Star); star {
			return nil, errAt(g, "GROUP BY %d refers to *: name the grouping columns", n)
		}
		if hasAgg(it.Expr) {
			return nil, errAt(g, "[GROUP_BY_POS_AGGREGATE] GROUP BY %d refers to an expression %s that contains an aggregate function. Aggregate functions are not allowed in GROUP BY", n, it.Expr.SQL())
		}
		if out == nil {
			cp := *sel
			cp.GroupBy = append([]parser.Expr(nil), sel.GroupBy...)
			out = &cp
		}
		out.GroupBy[i] = it.Expr
	}
	if out == nil {
		return sel, nil
	}
	return out, nil
}
