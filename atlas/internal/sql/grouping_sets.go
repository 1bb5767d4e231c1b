package sql

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// groupingSet is one grouping set of GROUP BY CUBE(...) or ROLLUP(...):
// the keys it leaves out (null in its rows, grouping(k) = 1) as a bit
// mask, key i at bit n-1-i as Spark's grouping_id() counts.
type groupingSet struct {
	absent, n int
}

func (g *groupingSet) omits(i int) bool { return g != nil && g.absent>>(g.n-1-i)&1 == 1 }

// groupingSets expands GROUP BY a, CUBE(b, c) or ROLLUP(b, c): the flat
// key list and the grouping sets, in Spark's order (CUBE: every subset,
// the full set first; ROLLUP: the prefixes, longest first). ok is false
// for a GROUP BY without CUBE or ROLLUP.
func groupingSets(sel *parser.Select) ([]parser.Expr, []*groupingSet, bool, error) {
	var keys, vary []parser.Expr
	kind := ""
	for _, g := range sel.GroupBy {
		c, ok := g.(*parser.Call)
		name := ""
		if ok {
			name = strings.ToLower(c.Name)
		}
		if name != "cube" && name != "rollup" {
			keys = append(keys, g)
			continue
		}
		if kind != "" {
			return nil, nil, true, errAt(g, "GROUP BY with more than one CUBE or ROLLUP is not supported yet")
		}
		if len(c.Args) == 0 {
			return nil, nil, true, errAt(g, "%s() needs at least one column", name)
		}
		kind, vary = name, c.Args
	}
	if kind == "" {
		return nil, nil, false, nil
	}
	keys = append(keys, vary...)
	n, m := len(keys), len(vary)
	var sets []*groupingSet
	if kind == "cube" {
		for absent := 0; absent < 1<<m; absent++ {
			sets = append(sets, &groupingSet{absent: absent, n: n})
		}
	} else {
		for dropped := 0; dropped <= m; dropped++ {
			sets = append(sets, &groupingSet{absent: 1<<dropped - 1, n: n})
		}
	}
	return keys, sets, true, nil
}

// planGroupingSets plans each grouping set as its own aggregation over in
// (the keys it omits as typed NULLs) and unions them, as Spark's Expand
// and Aggregate compute.
func planGroupingSets(sel *parser.Select, in plan.Node, keys []parser.Expr, sets []*groupingSet) (plan.Node, error) {
	if in.IsStreaming() {
		return nil, errAt(sel.GroupBy[len(sel.GroupBy)-1], "GROUP BY CUBE/ROLLUP over a stream is not supported yet: group a batch, or group by each set in its own query")
	}
	var outs []plan.Node
	for _, gs := range sets {
		one := *sel
		one.GroupBy = keys
		out, err := planAggregateSet(&one, in, gs)
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
	}
	u, err := plan.NewUnion(outs)
	if err != nil {
		return nil, errAt(sel, "GROUP BY %s: %v", sel.GroupBy[len(sel.GroupBy)-1].SQL(), err)
	}
	return u, nil
}

// groupingCall resolves grouping(k) (a TINYINT, 1 when the set omits k)
// and grouping_id() (a BIGINT, the set's mask) within a grouping set;
// ok is false for another expression.
func groupingCall(e parser.Expr, groupBy []parser.Expr, gs *groupingSet) (expr.Expr, bool, error) {
	c, ok := e.(*parser.Call)
	if !ok {
		return nil, false, nil
	}
	switch strings.ToLower(c.Name) {
	case "grouping":
		if gs == nil {
			return nil, true, errAt(e, "[UNSUPPORTED_GROUPING_EXPRESSION] grouping()/grouping_id() can only be used with GroupingSets/Cube/Rollup. SQLSTATE: 42K0E")
		}
		if len(c.Args) != 1 {
			return nil, true, errAt(e, "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `grouping` requires 1 parameters but the actual number is %d. SQLSTATE: 42605", len(c.Args))
		}
		for i, g := range groupBy {
			if sameExpr(c.Args[0], g) {
				v := int64(0)
				if gs.omits(i) {
					v = 1
				}
				return &constant{v: v, t: arrow.PrimitiveTypes.Int8, name: e.String()}, true, nil
			}
		}
		return nil, true, errAt(c.Args[0], "[GROUPING_COLUMN_MISMATCH] Column of grouping (%s) can't be found in grouping columns. SQLSTATE: 42803", c.Args[0].SQL())
	case "grouping_id":
		if gs == nil {
			return nil, true, errAt(e, "[UNSUPPORTED_GROUPING_EXPRESSION] grouping()/grouping_id() can only be used with GroupingSets/Cube/Rollup. SQLSTATE: 42K0E")
		}
		if len(c.Args) != 0 {
			return nil, true, errAt(e, "grouping_id(...) with columns is not supported yet: write grouping_id()")
		}
		return &constant{v: int64(gs.absent), t: arrow.PrimitiveTypes.Int64, name: "grouping_id()"}, true, nil
	}
	return nil, false, nil
}

// constant is an integer constant of type t (grouping's TINYINT, which
// expr.Literal does not make), or a typed NULL when null is set.
type constant struct {
	v    int64
	t    arrow.DataType
	null bool
	name string
}

func (c *constant) String() string { return c.name }

// Bind returns c itself: it needs no column.
func (c *constant) Bind(*arrow.Schema) (expr.Bound, error) { return c, nil }

// Type is the constant's type.
func (c *constant) Type() arrow.DataType { return c.t }

// Nullable reports whether the constant is a NULL.
func (c *constant) Nullable() bool { return c.null }

// Eval makes a column of the constant for every row of rec.
func (c *constant) Eval(_ *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	n := int(rec.NumRows())
	mem := memory.DefaultAllocator
	if c.null {
		return array.MakeArrayOfNull(mem, c.t, n), nil
	}
	b := array.NewBuilder(mem, c.t)
	defer b.Release()
	for range n {
		switch x := b.(type) {
		case *array.Int8Builder:
			x.Append(int8(c.v))
		case *array.Int64Builder:
			x.Append(c.v)
		default:
			return nil, fmt.Errorf("constant of %s is not supported", c.t)
		}
	}
	return b.NewArray(), nil
}

// nullKey is a grouping key a grouping set omits: NULL of the key's type.
type nullKey struct{ key expr.Expr }

func (k *nullKey) String() string { return k.key.String() }

// Bind resolves the key for its type.
func (k *nullKey) Bind(s *arrow.Schema) (expr.Bound, error) {
	b, err := k.key.Bind(s)
	if err != nil {
		return nil, err
	}
	return &constant{t: b.Type(), null: true, name: k.key.String()}, nil
}
