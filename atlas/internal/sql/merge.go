package sql

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// MergeSpec is one MERGE INTO as SQL or the typed builder states it: the
// target table, the aliases of both sides, the ON condition and the WHEN
// clauses in order.
type MergeSpec struct {
	// Target is the lakehouse table name.
	Target string
	// TargetAlias and SourceAlias qualify columns in ON, conditions and
	// SET expressions (t.invoice, s.invoice).
	TargetAlias, SourceAlias string
	// On is the join condition: a conjunction of equalities between a
	// target column and a source column.
	On parser.Expr
	// Clauses are the WHEN clauses in the order written.
	Clauses []*parser.MergeClause
	// At is where the statement starts (for errors without a better place).
	At parser.Position
	// AllowDuplicateInserts lets several source rows insert one key that
	// matched no target row (see merge.PropAllowDuplicateInserts).
	AllowDuplicateInserts bool
}

// MergeKey pairs the index of a target key column with the index of the
// source column it must equal.
type MergeKey struct {
	Target, Source int
}

// MergeAction is one compiled WHEN clause.
type MergeAction struct {
	// Cond is the clause condition over the joined record, nil when absent.
	Cond expr.Bound
	// Delete is set for DELETE.
	Delete bool
	// Values computes each target column over the joined record, in target
	// column order. A nil entry keeps the target's value (UPDATE) or writes
	// null (INSERT).
	Values []expr.Bound
	// Clause is the parsed clause, for messages.
	Clause *parser.MergeClause
}

// MergePlan is a MergeSpec resolved against the target and source schemas.
// Conditions and values evaluate over a joined record: the target columns
// (named alias.column) followed by the source columns; on an unmatched
// side the columns are null.
type MergePlan struct {
	Spec           MergeSpec
	Target, Source *arrow.Schema
	Joined         *arrow.Schema
	Keys           []MergeKey
	// Matched, NotMatched and NotMatchedBySource are the clauses of each
	// kind, in order: the first whose condition holds applies.
	Matched, NotMatched, NotMatchedBySource []*MergeAction
	// TargetRefs[i] is set when a clause condition or value refers to
	// target column i (beside the ON keys): a merge-on-read MERGE then
	// reads the matched rows' values, not only their keys.
	TargetRefs []bool
}

// PlanMerge resolves spec against the schemas. Columns may be qualified
// with either alias; an unqualified name must belong to one side only.
// UPDATE SET * and INSERT * take every target column from the source
// column of the same name (case-insensitive); a target column missing from
// the source is an error, source columns absent from the target (such as a
// CDC op column) are ignored. Spark requires both sides to have the same
// columns; Atlas is lenient so a CDC batch can carry its op and offset.
func PlanMerge(spec MergeSpec, target, source *arrow.Schema) (*MergePlan, error) {
	ta, sa := spec.TargetAlias, spec.SourceAlias
	if strings.EqualFold(ta, sa) {
		return nil, errAtPos(spec.At, "MERGE: the target and the source are both called %q; give them different aliases (MERGE INTO %s t USING ... s)", ta, spec.Target)
	}
	p := &MergePlan{Spec: spec, Target: target, Source: source, TargetRefs: make([]bool, target.NumFields())}
	var fields []arrow.Field
	for _, f := range target.Fields() {
		fields = append(fields, arrow.Field{Name: ta + "." + f.Name, Type: f.Type, Nullable: true})
	}
	for _, f := range source.Fields() {
		fields = append(fields, arrow.Field{Name: sa + "." + f.Name, Type: f.Type, Nullable: true})
	}
	p.Joined = arrow.NewSchema(fields, nil)
	if err := p.planOn(spec.On); err != nil {
		return nil, err
	}
	for _, c := range spec.Clauses {
		a, err := p.planClause(c)
		if err != nil {
			return nil, err
		}
		switch c.Match {
		case parser.WhenMatched:
			p.Matched = append(p.Matched, a)
		case parser.WhenNotMatched:
			p.NotMatched = append(p.NotMatched, a)
		case parser.WhenNotMatchedBySource:
			p.NotMatchedBySource = append(p.NotMatchedBySource, a)
		}
	}
	return p, nil
}

// side says which relation a column belongs to.
type side int

const (
	targetSide side = iota
	sourceSide
)

// ref resolves a column reference to (side, column index, struct path).
func (p *MergePlan) ref(c *parser.ColumnRef) (side, int, []string, error) {
	parts := c.Parts
	if len(parts) >= 2 {
		for _, s := range []struct {
			alias  string
			schema *arrow.Schema
			side   side
			what   string
		}{{p.Spec.TargetAlias, p.Target, targetSide, "target"}, {p.Spec.SourceAlias, p.Source, sourceSide, "source"}} {
			if strings.EqualFold(parts[0], s.alias) {
				i := expr.FieldIndex(s.schema, parts[1])
				if i < 0 {
					return 0, 0, nil, errAt(c, "the %s %s has no column %s; its columns are %s", s.what, s.alias, parts[1], names(s.schema))
				}
				return s.side, i, parts[2:], nil
			}
		}
	}
	ti, si := expr.FieldIndex(p.Target, parts[0]), expr.FieldIndex(p.Source, parts[0])
	switch {
	case ti >= 0 && si >= 0:
		return 0, 0, nil, errAt(c, "column %s is ambiguous: both the target and the source have it; write %s.%s or %s.%s", c.SQL(), p.Spec.TargetAlias, parts[0], p.Spec.SourceAlias, parts[0])
	case ti >= 0:
		return targetSide, ti, parts[1:], nil
	case si >= 0:
		return sourceSide, si, parts[1:], nil
	}
	both := arrow.NewSchema(append(slices.Clone(p.Target.Fields()), p.Source.Fields()...), nil)
	return 0, 0, nil, errAt(c, "%v (the target %s has %s, the source %s has %s)", expr.UnresolvedColumn(parts, both), p.Spec.TargetAlias, names(p.Target), p.Spec.SourceAlias, names(p.Source))
}

func (p *MergePlan) joinedName(sd side, i int) string {
	if sd == targetSide {
		return p.Spec.TargetAlias + "." + p.Target.Field(i).Name
	}
	return p.Spec.SourceAlias + "." + p.Source.Field(i).Name
}

// convert turns a clause expression into a bound expression over the
// joined record; only allows references the clause kind may make.
func (p *MergePlan) convert(e parser.Expr, allowTarget, allowSource bool, where string) (expr.Bound, error) {
	x, err := ExprWith(e, func(n parser.Expr) (expr.Expr, bool, error) {
		c, ok := n.(*parser.ColumnRef)
		if !ok {
			return nil, false, nil
		}
		sd, i, path, err := p.ref(c)
		if err != nil {
			return nil, true, err
		}
		if sd == targetSide && !allowTarget {
			return nil, true, errAt(c, "%s can only refer to source columns, not the target column %s", where, c.SQL())
		}
		if sd == sourceSide && !allowSource {
			return nil, true, errAt(c, "%s can only refer to target columns, not the source column %s", where, c.SQL())
		}
		if sd == targetSide {
			p.TargetRefs[i] = true
		}
		return &expr.ColumnRef{Parts: append([]string{p.joinedName(sd, i)}, path...)}, true, nil
	})
	if err != nil {
		return nil, err
	}
	b, err := x.Bind(p.Joined)
	if err != nil {
		return nil, errAt(e, "%s: %v", where, err)
	}
	return b, nil
}

func (p *MergePlan) planOn(on parser.Expr) error {
	if on == nil {
		return errAtPos(p.Spec.At, "MERGE needs an ON condition")
	}
	for _, c := range conjuncts(on) {
		b, ok := c.(*parser.Binary)
		var l, r *parser.ColumnRef
		if ok && (b.Op == "=" || b.Op == "==") {
			l, _ = b.L.(*parser.ColumnRef)
			r, _ = b.R.(*parser.ColumnRef)
		}
		if l == nil || r == nil {
			return errAt(c, "MERGE ON must be a conjunction of equalities between a target and a source column, such as t.invoice = s.invoice AND t.stock_code = s.stock_code; got %s", c.SQL())
		}
		ls, li, lp, err := p.ref(l)
		if err != nil {
			return err
		}
		rs, ri, rp, err := p.ref(r)
		if err != nil {
			return err
		}
		if len(lp) > 0 || len(rp) > 0 {
			return errAt(c, "MERGE ON must compare whole columns, not struct fields: %s", c.SQL())
		}
		switch {
		case ls == targetSide && rs == sourceSide:
			p.Keys = append(p.Keys, MergeKey{Target: li, Source: ri})
		case ls == sourceSide && rs == targetSide:
			p.Keys = append(p.Keys, MergeKey{Target: ri, Source: li})
		default:
			return errAt(c, "MERGE ON: %s must compare a target column with a source column", c.SQL())
		}
	}
	return nil
}

func conjuncts(e parser.Expr) []parser.Expr {
	if b, ok := e.(*parser.Binary); ok && strings.EqualFold(b.Op, "AND") {
		return append(conjuncts(b.L), conjuncts(b.R)...)
	}
	return []parser.Expr{e}
}

func (p *MergePlan) planClause(c *parser.MergeClause) (*MergeAction, error) {
	a := &MergeAction{Clause: c}
	allowT, allowS := true, true
	switch c.Match {
	case parser.WhenNotMatched:
		allowT = false
	case parser.WhenNotMatchedBySource:
		allowS = false
	}
	head := c.Match.String()
	if c.Cond != nil {
		b, err := p.convert(c.Cond, allowT, allowS, head+" condition")
		if err != nil {
			return nil, err
		}
		if b.Type().ID() != arrow.BOOL {
			return nil, errAt(c.Cond, "%s condition must be boolean, got %s", head, b.Type())
		}
		a.Cond = b
	}
	n := p.Target.NumFields()
	switch c.Action {
	case parser.DeleteRow:
		a.Delete = true
	case parser.UpdateAll, parser.InsertAll:
		what := "UPDATE SET *"
		if c.Action == parser.InsertAll {
			what = "INSERT *"
		}
		a.Values = make([]expr.Bound, n)
		for i, f := range p.Target.Fields() {
			si := expr.FieldIndex(p.Source, f.Name)
			if si < 0 {
				return nil, errAt(c, "%s: the source has no column %s of the target; add it to the source or list the columns (%s)", what, f.Name, listHint(c.Action))
			}
			b, err := (&expr.ColumnRef{Parts: []string{p.joinedName(sourceSide, si)}}).Bind(p.Joined)
			if err != nil {
				return nil, errAt(c, "%s: %v", what, err)
			}
			a.Values[i] = b
		}
	case parser.UpdateSet:
		a.Values = make([]expr.Bound, n)
		for _, as := range c.Set {
			i, err := p.assignTarget(as.Column)
			if err != nil {
				return nil, err
			}
			if a.Values[i] != nil {
				return nil, errAt(as, "UPDATE SET assigns %s twice", p.Target.Field(i).Name)
			}
			if a.Values[i], err = p.convert(as.Value, allowT, allowS, "UPDATE SET "+p.Target.Field(i).Name); err != nil {
				return nil, err
			}
		}
	case parser.InsertValues:
		a.Values = make([]expr.Bound, n)
		for j, col := range c.Columns {
			i, err := p.assignTarget(col)
			if err != nil {
				return nil, err
			}
			if a.Values[i] != nil {
				return nil, errAt(col, "INSERT lists %s twice", p.Target.Field(i).Name)
			}
			if a.Values[i], err = p.convert(c.Values[j], allowT, allowS, "INSERT value of "+p.Target.Field(i).Name); err != nil {
				return nil, err
			}
		}
	default:
		return nil, errAt(c, "unsupported MERGE action")
	}
	return a, nil
}

// assignTarget resolves the column on the left of SET col = ... or in an
// INSERT column list: a target column, optionally qualified by its alias.
func (p *MergePlan) assignTarget(c *parser.ColumnRef) (int, error) {
	parts := c.Parts
	if len(parts) == 2 && strings.EqualFold(parts[0], p.Spec.TargetAlias) {
		parts = parts[1:]
	}
	if len(parts) != 1 {
		return 0, errAt(c, "%s is not a column of the target %s", c.SQL(), p.Spec.Target)
	}
	i := expr.FieldIndex(p.Target, parts[0])
	if i < 0 {
		return 0, errAt(c, "the target %s has no column %s; its columns are %s", p.Spec.Target, parts[0], names(p.Target))
	}
	return i, nil
}

func listHint(a parser.MergeAction) string {
	if a == parser.InsertAll {
		return "INSERT (col, ...) VALUES (s.col, ...)"
	}
	return "UPDATE SET col = s.col, ..."
}

func names(s *arrow.Schema) string {
	out := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = f.Name
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func errAtPos(p parser.Position, format string, args ...any) error {
	return ErrorAt(p.Line, p.Col, format, args...)
}
