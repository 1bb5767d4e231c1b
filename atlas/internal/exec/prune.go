package exec

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// prunedName replaces a column's name to test whether an expression needs
// the column: no reference a user writes can match it.
const prunedName = "\x00atlas pruned column\x00"

// readColumns returns, for a query reading one streaming source, which of
// the source's columns its operators read (read[i] for column i), or nil
// when that is not known and every column must be built.
//
// Only the first projection over the scan (aliases of the scan aside) sees
// the source's rows: every later operator sees that projection's output.
// An expression reads an input column only through a reference that
// resolves it by name (a star is expanded into such references before
// binding). So a column is left out only when each of the projection's
// expressions still binds, to the same type, with that column renamed to
// a name no reference can match; anything else (another first operator, a
// failed bind) keeps the column.
func readColumns(shape *plan.Shape) []bool {
	if shape.StreamJoin != nil || len(shape.Pre) == 0 {
		return nil
	}
	scan, ok := shape.Leaf.(*plan.StreamScan)
	if !ok {
		return nil
	}
	var proj *plan.Project
	for _, n := range shape.Pre {
		if _, ok := n.(*plan.SubqueryAlias); ok {
			continue
		}
		if proj, ok = n.(*plan.Project); !ok {
			return nil
		}
		break
	}
	if proj == nil {
		return nil
	}
	// The projection must read the scan itself, through aliases only
	// (which keep the columns and their order).
	for n := proj.In; n != plan.Node(scan); n = n.Input() {
		if _, ok := n.(*plan.SubqueryAlias); !ok {
			return nil
		}
	}
	in := proj.In.Schema()
	if in.NumFields() != scan.Out.NumFields() {
		return nil
	}
	want := make([]arrow.DataType, len(proj.Exprs))
	for j, e := range proj.Exprs {
		b, err := e.Bind(in)
		if err != nil {
			return nil
		}
		want[j] = b.Type()
	}
	read := make([]bool, in.NumFields())
	fields := in.Fields()
	for i := range fields {
		probe := make([]arrow.Field, len(fields))
		copy(probe, fields)
		probe[i].Name = prunedName
		s := arrow.NewSchema(probe, nil)
		for j, e := range proj.Exprs {
			if !bindsTo(e, s, want[j]) {
				read[i] = true
				break
			}
		}
	}
	return read
}

// bindsTo reports whether e binds against s to a result of type t.
func bindsTo(e expr.Expr, s *arrow.Schema, t arrow.DataType) bool {
	b, err := e.Bind(s)
	return err == nil && arrow.TypeEqual(b.Type(), t)
}
