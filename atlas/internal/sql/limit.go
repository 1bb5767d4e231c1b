package sql

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// nondeterministic are the functions Spark does not fold: a LIMIT on them
// is not a constant.
var nondeterministic = map[string]bool{"rand": true, "random": true, "randn": true, "uuid": true, "shuffle": true, "monotonically_increasing_id": true}

// limitValue evaluates the expression of a LIMIT clause as Spark does
// (CheckAnalysis's checkLimitLikeClause): it must be foldable (no column,
// aggregate or nondeterministic call), of type INT, not NULL and not
// negative; each failure is Spark's INVALID_LIMIT_LIKE_EXPRESSION (SQLSTATE
// 42K0E) with its subclass. LIMIT 1+1 is 2.
func limitValue(e parser.Expr) (int64, error) {
	sqlText := e.SQL()
	foldable := true
	parser.Inspect(e, func(x parser.Expr) bool {
		switch c := x.(type) {
		case *parser.ColumnRef, *parser.Star:
			foldable = false
		case *parser.Call:
			if hasAgg(c) || nondeterministic[strings.ToLower(c.Name)] {
				foldable = false
			}
		}
		return foldable
	})
	unfoldable := func() error {
		return errAt(e, "[INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE] The limit like expression \"%s\" is invalid. The limit expression must evaluate to a constant value. SQLSTATE: 42K0E", sqlText)
	}
	if !foldable {
		return 0, unfoldable()
	}
	x, err := Expr(e)
	if err != nil {
		return 0, err
	}
	empty := arrow.NewSchema(nil, nil)
	b, err := x.Bind(empty)
	if err != nil {
		return 0, unfoldable()
	}
	if b.Type().ID() != arrow.INT32 && b.Type().ID() != arrow.NULL {
		return 0, errAt(e, "[INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE] The limit like expression \"%s\" is invalid. The limit expression must be integer type, but got \"%s\". SQLSTATE: 42K0E", sqlText, types.SQLName(b.Type()))
	}
	rec := array.NewRecordBatch(empty, nil, 1)
	defer rec.Release()
	out, err := b.Eval(expr.NewCtx(context.Background()), rec)
	if err != nil {
		return 0, errAt(e, "LIMIT %s: %v", sqlText, err)
	}
	defer out.Release()
	ints, ok := out.(*array.Int32)
	if !ok || out.Len() != 1 || out.IsNull(0) {
		return 0, errAt(e, "[INVALID_LIMIT_LIKE_EXPRESSION.IS_NULL] The limit like expression \"%s\" is invalid. The evaluated limit expression must not be null. SQLSTATE: 42K0E", sqlText)
	}
	n := int64(ints.Value(0))
	if n < 0 {
		return 0, errAt(e, "[INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE] The limit like expression \"%s\" is invalid. The limit expression must be equal to or greater than 0, but got %d. SQLSTATE: 42K0E", sqlText, n)
	}
	return n, nil
}
