package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// JoinType is a join's kind, named as Spark's JoinType.sql.
type JoinType string

// The join types of DataFrame.join(other, on, how) and SQL's JOIN.
const (
	InnerJoin      JoinType = "Inner"
	LeftOuterJoin  JoinType = "LeftOuter"
	RightOuterJoin JoinType = "RightOuter"
	FullOuterJoin  JoinType = "FullOuter"
	LeftSemiJoin   JoinType = "LeftSemi"
	LeftAntiJoin   JoinType = "LeftAnti"
	CrossJoin      JoinType = "Cross"
)

// ParseJoinType reads the `how` argument of DataFrame.join as Spark does:
// inner, cross, outer, full, fullouter, full_outer, left, leftouter,
// left_outer, right, rightouter, right_outer, semi, leftsemi, left_semi,
// anti, leftanti, left_anti (case-insensitive, "" is inner).
func ParseJoinType(how string) (JoinType, error) {
	switch strings.ReplaceAll(strings.ToLower(how), "_", "") {
	case "", "inner":
		return InnerJoin, nil
	case "cross":
		return CrossJoin, nil
	case "outer", "full", "fullouter":
		return FullOuterJoin, nil
	case "left", "leftouter":
		return LeftOuterJoin, nil
	case "right", "rightouter":
		return RightOuterJoin, nil
	case "semi", "leftsemi":
		return LeftSemiJoin, nil
	case "anti", "leftanti":
		return LeftAntiJoin, nil
	}
	return "", fmt.Errorf("unsupported join type %q; supported join types include: 'inner', 'outer', 'full', 'fullouter', 'full_outer', 'leftouter', 'left', 'left_outer', 'rightouter', 'right', 'right_outer', 'leftsemi', 'left_semi', 'semi', 'leftanti', 'left_anti', 'anti', 'cross'", how)
}

// MetaQualifier is the Arrow field metadata key holding the relation alias
// a column can be qualified with ("i" in i.adId), set by SubqueryAlias.
const MetaQualifier = expr.MetaQualifier

// SubqueryAlias names a relation (DataFrame.alias, FROM t AS i) so that its
// columns can be referred to as alias.column, which disambiguates columns
// of the same name on both sides of a join.
type SubqueryAlias struct {
	In    Node
	Alias string
	Out   *arrow.Schema
	// planID is set for a plan id tag (NewPlanIDTag).
	planID int64
}

// NewSubqueryAlias tags every column of in with the alias.
func NewSubqueryAlias(in Node, alias string) *SubqueryAlias {
	fields := make([]arrow.Field, in.Schema().NumFields())
	for i, f := range in.Schema().Fields() {
		fields[i] = withQualifier(f, alias)
	}
	return &SubqueryAlias{In: in, Alias: alias, Out: arrow.NewSchema(fields, nil)}
}

func withQualifier(f arrow.Field, q string) arrow.Field {
	keys, vals := []string{}, []string{}
	if f.HasMetadata() {
		for i, k := range f.Metadata.Keys() {
			if k != MetaQualifier {
				keys = append(keys, k)
				vals = append(vals, f.Metadata.Values()[i])
			}
		}
	}
	if q != "" {
		keys, vals = append(keys, MetaQualifier), append(vals, q)
	}
	f.Metadata = arrow.NewMetadata(keys, vals)
	return f
}

// NewPlanIDTag tags every column of in with Spark Connect plan ids (the
// relation's and its inputs', added to any earlier ones), so that a
// reference carrying one (df["k"] in PySpark) finds its column after a
// join; the relation keeps its alias.
func NewPlanIDTag(in Node, planIDs []int64) *SubqueryAlias {
	strs := make([]string, len(planIDs))
	for i, p := range planIDs {
		strs[i] = strconv.FormatInt(p, 10)
	}
	id := strings.Join(strs, ",")
	planID := planIDs[0]
	fields := make([]arrow.Field, in.Schema().NumFields())
	alias := ""
	for i, f := range in.Schema().Fields() {
		keys, vals := []string{}, []string{}
		ids := id
		if f.HasMetadata() {
			for k, key := range f.Metadata.Keys() {
				v := f.Metadata.Values()[k]
				if key == expr.MetaPlanIDs {
					ids = v + "," + id
					continue
				}
				keys, vals = append(keys, key), append(vals, v)
			}
		}
		f.Metadata = arrow.NewMetadata(append(keys, expr.MetaPlanIDs), append(vals, ids))
		fields[i] = f
		if q := expr.Qualifier(f); q != "" {
			alias = q
		}
	}
	return &SubqueryAlias{In: in, Alias: alias, Out: arrow.NewSchema(fields, nil), planID: planID}
}

func (s *SubqueryAlias) Schema() *arrow.Schema { return s.Out }
func (s *SubqueryAlias) Input() Node           { return s.In }
func (s *SubqueryAlias) IsStreaming() bool     { return s.In.IsStreaming() }
func (s *SubqueryAlias) Describe() string {
	if s.planID != 0 {
		return "PlanId " + strconv.FormatInt(s.planID, 10)
	}
	return "SubqueryAlias " + s.Alias
}

// Join combines two relations. Its Input is the left side; Right is the
// other. Keys are the equi-join conditions found among the conjuncts of
// the condition (left expression bound to Left, right to Right); Residual
// is the rest, evaluated on a row made of the left and right columns.
type Join struct {
	Left, Right Node
	Type        JoinType
	// Using lists the USING columns (DataFrame.join(other, "col")); they
	// appear once, first, in the output.
	Using []string
	// Cond is the whole join condition as given (nil for none).
	Cond expr.Expr
	// LeftKeys[i] = RightKeys[i] are the equi-join keys.
	LeftKeys, RightKeys []expr.Expr
	// LeftOnly, RightOnly and Both split the other conjuncts by the side
	// they read (Spark's JoinConditionSplitPredicates); each is nil when
	// empty. LeftOnly is bound to Left's schema, RightOnly to Right's, Both
	// to Pair.
	LeftOnly, RightOnly, Both expr.Expr
	// Pair is the schema of a left row followed by a right row.
	Pair *arrow.Schema
	Out  *arrow.Schema
}

// NewJoin resolves a join on a condition (nil for a cross join).
func NewJoin(left, right Node, typ JoinType, cond expr.Expr) (*Join, error) {
	j := &Join{Left: left, Right: right, Type: typ, Cond: cond}
	j.Pair = concatSchemas(left.Schema(), right.Schema(), false, false)
	if cond != nil {
		b, err := cond.Bind(j.Pair)
		if err != nil {
			return nil, fmt.Errorf("join condition: %w", err)
		}
		if b.Type().ID() != arrow.BOOL {
			return nil, fmt.Errorf("join condition %s must be boolean, got %s", cond, types.Name(b.Type()))
		}
		if err := j.split(cond); err != nil {
			return nil, err
		}
	} else if typ != CrossJoin && typ != InnerJoin {
		return nil, fmt.Errorf("%s join needs a join condition or USING columns", typ)
	}
	j.Out = j.outputSchema(nil)
	return j, nil
}

// NewUsingJoin resolves a join on columns of the same name on both sides
// (DataFrame.join(other, ["a", "b"]), SQL's USING (a, b)).
func NewUsingJoin(left, right Node, typ JoinType, using []string) (*Join, error) {
	if len(using) == 0 {
		return nil, fmt.Errorf("join: give at least one USING column")
	}
	j := &Join{Left: left, Right: right, Type: typ}
	j.Pair = concatSchemas(left.Schema(), right.Schema(), false, false)
	for _, u := range using {
		li := expr.FieldIndex(left.Schema(), u)
		ri := expr.FieldIndex(right.Schema(), u)
		if li < 0 {
			return nil, fmt.Errorf("USING column `%s` cannot be resolved on the left side of the join; the left-side columns: [%s]", u, fieldNames(left.Schema()))
		}
		if ri < 0 {
			return nil, fmt.Errorf("USING column `%s` cannot be resolved on the right side of the join; the right-side columns: [%s]", u, fieldNames(right.Schema()))
		}
		ln, rn := left.Schema().Field(li).Name, right.Schema().Field(ri).Name
		j.Using = append(j.Using, ln)
		j.LeftKeys = append(j.LeftKeys, &expr.ColumnRef{Parts: []string{ln}})
		j.RightKeys = append(j.RightKeys, &expr.ColumnRef{Parts: []string{rn}})
		eq := expr.Bin("=", &expr.ColumnRef{Parts: []string{ln}, Ordinal: 1}, &expr.ColumnRef{Parts: []string{rn}, Ordinal: 2})
		if _, err := eq.Bind(arrow.NewSchema([]arrow.Field{left.Schema().Field(li), right.Schema().Field(ri)}, nil)); err != nil {
			return nil, fmt.Errorf("USING column `%s`: %w", u, err)
		}
	}
	j.Out = j.outputSchema(j.Using)
	return j, nil
}

// split sorts the conjuncts of cond into equi-join keys and side-only or
// two-sided filters.
func (j *Join) split(cond expr.Expr) error {
	ls, rs := j.Left.Schema(), j.Right.Schema()
	nl := ls.NumFields()
	leftView := maskSchema(j.Pair, nl, j.Pair.NumFields())
	rightView := maskSchema(j.Pair, 0, nl)
	reads := func(e expr.Expr, view *arrow.Schema) bool { _, err := e.Bind(view); return err == nil }
	var lo, ro, both []expr.Expr
	for _, c := range Conjuncts(cond) {
		if b, ok := c.(*expr.Binary); ok && b.Op == "=" {
			switch {
			case reads(b.L, leftView) && reads(b.R, rightView) && !reads(b.L, rightView) && !reads(b.R, leftView):
				if hashable(b.L, ls, b.R, rs) {
					j.LeftKeys, j.RightKeys = append(j.LeftKeys, b.L), append(j.RightKeys, b.R)
					continue
				}
			case reads(b.R, leftView) && reads(b.L, rightView) && !reads(b.R, rightView) && !reads(b.L, leftView):
				if hashable(b.R, ls, b.L, rs) {
					j.LeftKeys, j.RightKeys = append(j.LeftKeys, b.R), append(j.RightKeys, b.L)
					continue
				}
			}
		}
		switch {
		case reads(c, leftView):
			lo = append(lo, c)
		case reads(c, rightView):
			if _, err := c.Bind(rs); err == nil {
				ro = append(ro, c)
				continue
			}
			both = append(both, c)
		default:
			both = append(both, c)
		}
	}
	j.LeftOnly, j.RightOnly, j.Both = And(lo), And(ro), And(both)
	return nil
}

// hashable reports whether l (on ls) and r (on rs) can be compared by
// their hashed values: same type, or both integers or both numbers (which
// the join widens to bigint or double first, as Spark's coercion does).
func hashable(l expr.Expr, ls *arrow.Schema, r expr.Expr, rs *arrow.Schema) bool {
	lb, err := l.Bind(ls)
	if err != nil {
		return false
	}
	rb, err := r.Bind(rs)
	if err != nil {
		return false
	}
	lt, rt := lb.Type(), rb.Type()
	if arrow.TypeEqual(lt, rt) {
		switch lt.ID() {
		case arrow.STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.BOOL, arrow.TIMESTAMP, arrow.DATE32:
			return true
		}
		return false
	}
	return isNumber(lt) && isNumber(rt)
}

func isNumber(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

// maskSchema renames fields [from, to) so that no name can resolve to them.
func maskSchema(s *arrow.Schema, from, to int) *arrow.Schema {
	fields := append([]arrow.Field(nil), s.Fields()...)
	for i := from; i < to; i++ {
		fields[i] = arrow.Field{Name: fmt.Sprintf("\x00masked%d", i), Type: fields[i].Type, Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// Conjuncts splits a condition at its top-level ANDs.
func Conjuncts(e expr.Expr) []expr.Expr {
	if e == nil {
		return nil
	}
	if b, ok := e.(*expr.Binary); ok && b.Op == "AND" {
		return append(Conjuncts(b.L), Conjuncts(b.R)...)
	}
	return []expr.Expr{e}
}

// And joins conditions with AND (nil for none).
func And(es []expr.Expr) expr.Expr {
	var out expr.Expr
	for _, e := range es {
		if out == nil {
			out = e
		} else {
			out = expr.Bin("AND", out, e)
		}
	}
	return out
}

func concatSchemas(l, r *arrow.Schema, nullL, nullR bool) *arrow.Schema {
	fields := make([]arrow.Field, 0, l.NumFields()+r.NumFields())
	for _, f := range l.Fields() {
		f.Nullable = f.Nullable || nullL
		fields = append(fields, f)
	}
	for _, f := range r.Fields() {
		f.Nullable = f.Nullable || nullR
		fields = append(fields, f)
	}
	return arrow.NewSchema(fields, nil)
}

// outputSchema is Spark's join output: left then right columns (the side
// an outer join may fill with nulls made nullable); the left columns only
// for semi and anti joins; with USING columns, those first (once), then
// the other left columns, then the other right columns.
func (j *Join) outputSchema(using []string) *arrow.Schema {
	ls, rs := j.Left.Schema(), j.Right.Schema()
	nullL := j.Type == RightOuterJoin || j.Type == FullOuterJoin
	nullR := j.Type == LeftOuterJoin || j.Type == FullOuterJoin
	if j.Type == LeftSemiJoin || j.Type == LeftAntiJoin {
		return ls
	}
	if len(using) == 0 {
		return concatSchemas(ls, rs, nullL, nullR)
	}
	var fields []arrow.Field
	for i := range using {
		lf := ls.Field(expr.FieldIndex(ls, using[i]))
		rf := rs.Field(expr.FieldIndex(rs, j.RightKeys[i].(*expr.ColumnRef).Parts[0]))
		f := lf
		switch j.Type {
		case RightOuterJoin:
			f = rf
		case FullOuterJoin:
			f = arrow.Field{Name: lf.Name, Type: lf.Type, Nullable: lf.Nullable || rf.Nullable}
		}
		fields = append(fields, f)
	}
	for _, l := range j.LeftColumns() {
		f := ls.Field(l)
		f.Nullable = f.Nullable || nullL
		fields = append(fields, f)
	}
	for _, r := range j.RightColumns() {
		f := rs.Field(r)
		f.Nullable = f.Nullable || nullR
		fields = append(fields, f)
	}
	return arrow.NewSchema(fields, nil)
}

// LeftColumns are the indices of the left columns in the output after the
// USING columns (all of them without USING).
func (j *Join) LeftColumns() []int {
	return otherColumns(j.Left.Schema(), j.LeftKeys, len(j.Using) > 0)
}

// RightColumns are the indices of the right columns in the output after
// the USING columns and the left columns.
func (j *Join) RightColumns() []int {
	return otherColumns(j.Right.Schema(), j.RightKeys, len(j.Using) > 0)
}

func otherColumns(s *arrow.Schema, keys []expr.Expr, using bool) []int {
	skip := map[int]bool{}
	if using {
		for _, k := range keys {
			skip[expr.FieldIndex(s, k.(*expr.ColumnRef).Parts[0])] = true
		}
	}
	var out []int
	for i := 0; i < s.NumFields(); i++ {
		if !skip[i] {
			out = append(out, i)
		}
	}
	return out
}

// UsingIndices returns, for each USING column, its index on the left and
// on the right.
func (j *Join) UsingIndices() (left, right []int) {
	for i := range j.Using {
		left = append(left, expr.FieldIndex(j.Left.Schema(), j.LeftKeys[i].(*expr.ColumnRef).Parts[0]))
		right = append(right, expr.FieldIndex(j.Right.Schema(), j.RightKeys[i].(*expr.ColumnRef).Parts[0]))
	}
	return left, right
}

// IsStreamStream reports whether both sides are streams.
func (j *Join) IsStreamStream() bool { return j.Left.IsStreaming() && j.Right.IsStreaming() }

func (j *Join) Schema() *arrow.Schema { return j.Out }
func (j *Join) Input() Node           { return j.Left }
func (j *Join) IsStreaming() bool     { return j.Left.IsStreaming() || j.Right.IsStreaming() }
func (j *Join) Describe() string {
	s := "Join " + string(j.Type)
	switch {
	case len(j.Using) > 0:
		s += ", USING (" + strings.Join(j.Using, ", ") + ")"
	case j.Cond != nil:
		s += ", " + j.Cond.String()
	}
	return s
}
