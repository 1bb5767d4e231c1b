package sql

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// planValues evaluates an inline table (VALUES ...) into a local scan, as
// Spark's ResolveInlineTables does: every value must be a constant
// expression; a column's type is the wider type of its values (an error
// when they have none, such as a string and a number); columns are named
// by the alias's column list, else col1, col2, ...
func planValues(v *parser.ValuesRef) (plan.Node, error) {
	empty := arrow.NewSchema(nil, nil)
	ncols := len(v.Rows[0])
	bound := make([][]expr.Bound, len(v.Rows))
	types := make([]arrow.DataType, ncols)
	nullable := make([]bool, ncols)
	for i, row := range v.Rows {
		bound[i] = make([]expr.Bound, ncols)
		for j, e := range row {
			if err := constantOnly(e); err != nil {
				return nil, err
			}
			x, err := Expr(e)
			if err != nil {
				return nil, err
			}
			b, err := x.Bind(empty)
			if err != nil {
				return nil, errAt(e, "%v", err)
			}
			bound[i][j] = b
			nullable[j] = nullable[j] || b.Nullable()
			if i == 0 {
				types[j] = b.Type()
				continue
			}
			t, ok := expr.WiderType(types[j], b.Type())
			if !ok {
				return nil, errAt(e, "[INVALID_INLINE_TABLE.INCOMPATIBLE_TYPES_IN_INLINE_TABLE] Found incompatible types in the column `%s` for inline table: %s and %s", valuesColumn(v, j), types[j], b.Type())
			}
			types[j] = t
		}
	}
	fields := make([]arrow.Field, ncols)
	for j := range fields {
		fields[j] = arrow.Field{Name: valuesColumn(v, j), Type: types[j], Nullable: nullable[j]}
	}
	schema := arrow.NewSchema(fields, nil)
	rec, err := evalRows(v, bound, schema)
	if err != nil {
		return nil, err
	}
	var n plan.Node = &plan.LocalScan{Name: "LocalRelation", Out: schema, Records: []arrow.RecordBatch{rec}}
	if v.Alias != "" {
		n = plan.NewSubqueryAlias(n, v.Alias)
	}
	return n, nil
}

func valuesColumn(v *parser.ValuesRef, j int) string {
	if j < len(v.Columns) {
		return v.Columns[j]
	}
	return fmt.Sprintf("col%d", j+1)
}

// constantOnly refuses column references in an inline table, as Spark's
// INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE.
func constantOnly(e parser.Expr) error {
	var bad parser.Expr
	parser.Inspect(e, func(x parser.Expr) bool {
		if _, ok := x.(*parser.ColumnRef); ok && bad == nil {
			bad = x
		}
		return bad == nil
	})
	if bad != nil {
		return errAt(bad, "[INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE] Cannot evaluate the expression %s in inline table definition: a value of VALUES must be a constant", bad.SQL())
	}
	return nil
}

// evalRows computes every value, cast to its column's type, into one batch.
func evalRows(v *parser.ValuesRef, bound [][]expr.Bound, schema *arrow.Schema) (arrow.RecordBatch, error) {
	c := expr.NewCtx(context.Background())
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for j, f := range schema.Fields() {
		parts := make([]arrow.Array, len(bound))
		for i := range bound {
			a, err := expr.CastBound(bound[i][j], f.Type).Eval(c, one)
			if err != nil {
				for _, p := range parts[:i] {
					p.Release()
				}
				return nil, errAt(v.Rows[i][j], "%v", err)
			}
			parts[i] = a
		}
		col, err := array.Concatenate(parts, c.Mem)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			return nil, fmt.Errorf("inline table column %s: %w", f.Name, err)
		}
		cols[j] = col
	}
	rec := array.NewRecordBatch(schema, cols, int64(len(bound)))
	return rec, nil
}
