// Package expr holds Atlas's column expressions: unresolved trees built by
// the DataFrame API and the SQL planner (Expr), and their resolved form
// bound to an input schema (Bound), which evaluates over Arrow record
// batches a whole column at a time. Arithmetic, comparison, boolean logic,
// casts and sorting delegate to arrow-go's compute kernels; only what
// compute has no kernel for (time windows, from_json) is evaluated here.
package expr

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// Ctx carries what evaluation needs besides the input: an allocator, a
// context for compute kernels and counters expressions add to (such as
// numMalformedRows from from_json).
type Ctx struct {
	Context context.Context
	Mem     memory.Allocator
	// Metrics collects counters by name; nil disables counting.
	Metrics map[string]int64
	// Now is the value of current_timestamp(): one instant for a whole
	// batch query or micro-batch, as Spark fixes it once per query plan
	// (for streaming, the micro-batch's batch timestamp).
	Now time.Time
}

// NewCtx returns a Ctx with the default allocator and a fresh metrics map.
func NewCtx(ctx context.Context) *Ctx {
	if ctx == nil {
		ctx = context.Background()
	}
	return &Ctx{Context: ctx, Mem: memory.DefaultAllocator, Metrics: map[string]int64{}, Now: time.Now().UTC().Truncate(time.Microsecond)}
}

// Err is the error of the evaluation's context once it is cancelled or its
// deadline passed, nil otherwise (and for a Ctx without a context). The
// operators check it before each operand, so a deep expression stops
// soon after the client that asked for it cancels.
func (c *Ctx) Err() error {
	if c == nil || c.Context == nil {
		return nil
	}
	return c.Context.Err()
}

// Add increments a metric.
func (c *Ctx) Add(name string, n int64) {
	if c != nil && c.Metrics != nil && n != 0 {
		c.Metrics[name] += n
	}
}

// Expr is an unresolved column expression: it names columns but knows no
// schema yet.
type Expr interface {
	// String renders the expression the way Spark names a column computed
	// by it, e.g. "count", "window", "(quantity * price)".
	String() string
	// Bind resolves the expression against an input schema.
	Bind(s *arrow.Schema) (Bound, error)
}

// Bound is an expression resolved against a schema, ready to evaluate.
// Every implementation is safe for concurrent use: Eval keeps no state
// between calls that another call could see (from_json draws a decoder
// from a pool). Plans still bind per execution (see package plan).
type Bound interface {
	// Type is the Arrow type of the result.
	Type() arrow.DataType
	// Nullable reports whether the result can hold nulls.
	Nullable() bool
	// Eval computes the expression for every row of rec. The caller owns
	// (and must Release) the returned array.
	Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error)
}

// OutputName is the column name a projection of e gets: the alias, the
// referenced column's last name part, or the expression's text.
func OutputName(e Expr) string {
	switch x := e.(type) {
	case *Alias:
		return x.Name
	case *ColumnRef:
		return x.Parts[len(x.Parts)-1]
	case *Star:
		return "*"
	}
	return e.String()
}

// ColumnRef refers to an input column by name; further parts select fields
// of a struct column ("window.start", "data.user_id"). Names match case-
// insensitively, as in Spark's default analyzer.
type ColumnRef struct {
	Parts []string
	// Ordinal, when positive, is the 1-based position of the column in the
	// schema the reference was made from (a star's expansion): the
	// reference binds to that column when its name still matches, so the
	// columns of both sides of a join resolve even when they share a name.
	Ordinal int
	// PlanID, when not zero, names the relation the column is taken from,
	// as Spark Connect's plan_id (df1["adId"] in PySpark): among columns of
	// the same name, the one tagged with that id (MetaPlanIDs) is meant.
	PlanID int64
}

// Col parses a dotted column name ("a", "data.ts", "`odd.name`").
func Col(name string) *ColumnRef {
	return &ColumnRef{Parts: splitName(name)}
}

func splitName(name string) []string {
	var parts []string
	var cur strings.Builder
	quoted := false
	for _, r := range name {
		switch {
		case r == '`':
			quoted = !quoted
		case r == '.' && !quoted:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(parts, cur.String())
}

func (c *ColumnRef) String() string { return strings.Join(c.Parts, ".") }

// Bind resolves the reference: "i.adId" names the adId of the relation
// aliased i; without aliases in the schema, a qualifier (such as "t" in
// "t.invoice") is skipped when the schema has no column of that name.
func (c *ColumnRef) Bind(s *arrow.Schema) (Bound, error) {
	parts := c.Parts
	var idx int
	if o := c.Ordinal - 1; o >= 0 && o < s.NumFields() && len(parts) == 1 && s.Field(o).Name == parts[0] {
		idx = o
	} else if i, ok, err := resolvePlanID(s, parts, c.PlanID); ok || err != nil {
		if err != nil {
			return nil, err
		}
		idx = i
	} else {
		var err error
		if idx, err = resolveColumn(s, parts); err != nil {
			return nil, err
		}
	}
	if idx >= 0 && len(parts) > 1 && Qualifier(s.Field(idx)) != "" && strings.EqualFold(Qualifier(s.Field(idx)), parts[0]) && !strings.EqualFold(s.Field(idx).Name, parts[0]) {
		parts = parts[1:]
	}
	if idx < 0 && len(parts) > 1 && !hasQualifiers(s) {
		if j := FieldIndex(s, parts[1]); j >= 0 {
			parts, idx = parts[1:], j
		}
	}
	if idx < 0 {
		return nil, UnresolvedColumn(c.Parts, s)
	}
	b := &colBound{index: idx, field: s.Field(idx)}
	var out Bound = b
	typ := b.field.Type
	for _, p := range parts[1:] {
		st, ok := typ.(*arrow.StructType)
		if !ok {
			return nil, fmt.Errorf("cannot resolve %q: %q is %s, not a struct", c.String(), p, typ)
		}
		fi := structFieldIndex(st, p)
		if fi < 0 {
			names := make([]string, st.NumFields())
			for i, f := range st.Fields() {
				names[i] = f.Name
			}
			fields := QuoteID(names[0])
			for _, n := range names[1:] {
				fields += ", " + QuoteID(n)
			}
			return nil, sparkerr.WithParams("FIELD_NOT_FOUND", map[string]string{"fieldName": QuoteID(p), "fields": fields},
				"No such struct field %s in %s (in %s).", QuoteID(p), fields, QuoteID(c.Parts...))
		}
		out = &fieldBound{inner: out, index: fi, field: st.Field(fi)}
		typ = st.Field(fi).Type
	}
	return out, nil
}

// MetaQualifier is the Arrow field metadata key holding the alias of the
// relation a column comes from (DataFrame.alias, FROM t AS i), so that
// i.adId names it even when the other side of a join has an adId too.
const MetaQualifier = "atlas.qualifier"

// Qualifier returns the relation alias of a field, or "".
func Qualifier(f arrow.Field) string {
	if f.HasMetadata() {
		if i := f.Metadata.FindKey(MetaQualifier); i >= 0 {
			return f.Metadata.Values()[i]
		}
	}
	return ""
}

// MetaPlanIDs is the Arrow field metadata key listing (comma-separated) the
// Spark Connect plan ids of the join inputs a column comes from.
const MetaPlanIDs = "atlas.planIds"

// resolvePlanID finds the one column named parts[0] tagged with planID.
// When columns of that name are tagged, but none with planID, the
// reference names a relation that is not there: an error, rather than
// the other relation's column of the same name. Without tags it reports
// ok=false and the name alone decides.
func resolvePlanID(s *arrow.Schema, parts []string, planID int64) (int, bool, error) {
	if planID == 0 {
		return 0, false, nil
	}
	id := strconv.FormatInt(planID, 10)
	found, tagged := -1, false
	for i, f := range s.Fields() {
		if !strings.EqualFold(f.Name, parts[0]) || !f.HasMetadata() {
			continue
		}
		k := f.Metadata.FindKey(MetaPlanIDs)
		if k < 0 {
			continue
		}
		tagged = true
		if slices.Contains(strings.Split(f.Metadata.Values()[k], ","), id) {
			if found >= 0 {
				return 0, false, nil
			}
			found = i
		}
	}
	if found < 0 && tagged {
		return 0, false, sparkerr.WithParams("CANNOT_RESOLVE_DATAFRAME_COLUMN", map[string]string{"name": parts[0]},
			"Cannot resolve dataframe column %q (plan id %d): it is not an input of this join, whose input columns are [%s]. It's probably because of illegal references like `df1.select(df2.col(\"a\"))`.", parts[0], planID, columnList(s))
	}
	return found, found >= 0, nil
}

// hasQualifiers reports whether some column of s carries a relation alias:
// then a qualifier must name one, and "x.col" with an unknown x is an
// error rather than col.
func hasQualifiers(s *arrow.Schema) bool {
	for _, f := range s.Fields() {
		if Qualifier(f) != "" {
			return true
		}
	}
	return false
}

// resolveColumn finds the field parts names: a qualified name
// (alias.column) whose alias matches a field's qualifier first, then the
// first part as a column name. A name that matches columns of two
// relations (a join of two tables with an adId each) is ambiguous, as
// Spark's AMBIGUOUS_REFERENCE. It returns -1 when nothing matches.
func resolveColumn(s *arrow.Schema, parts []string) (int, error) {
	if len(parts) > 1 {
		found := -1
		for i, f := range s.Fields() {
			if q := Qualifier(f); q != "" && strings.EqualFold(q, parts[0]) && strings.EqualFold(f.Name, parts[1]) {
				if found >= 0 {
					return -1, fmt.Errorf("[AMBIGUOUS_REFERENCE] Reference `%s` is ambiguous: two columns of %s are named %s", strings.Join(parts[:2], "."), parts[0], parts[1])
				}
				found = i
			}
		}
		if found >= 0 {
			return found, nil
		}
	}
	idx := FieldIndex(s, parts[0])
	if idx < 0 {
		return -1, nil
	}
	var same []string
	for _, f := range s.Fields() {
		if strings.EqualFold(f.Name, s.Field(idx).Name) {
			name := f.Name
			if q := Qualifier(f); q != "" {
				name = q + "." + name
			}
			same = append(same, "`"+name+"`")
		}
	}
	if len(same) > 1 {
		return -1, fmt.Errorf("[AMBIGUOUS_REFERENCE] Reference `%s` is ambiguous, could be: [%s]; name the relation (DataFrame.Alias(\"a\") and Col(\"a.%s\"), or FROM t AS a in SQL), or rename one column before the join", parts[0], strings.Join(same, ", "), parts[0])
	}
	return idx, nil
}

// FieldIndex finds a column by name: exact match first, then case-insensitive.
// It returns -1 when there is none.
func FieldIndex(s *arrow.Schema, name string) int {
	if idx := s.FieldIndices(name); len(idx) > 0 {
		return idx[0]
	}
	for i, f := range s.Fields() {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

func structFieldIndex(st *arrow.StructType, name string) int {
	if i, ok := st.FieldIdx(name); ok {
		return i
	}
	for i, f := range st.Fields() {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

func columnList(s *arrow.Schema) string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = "`" + f.Name + "`"
	}
	return strings.Join(names, ", ")
}

type colBound struct {
	index int
	field arrow.Field
}

func (b *colBound) Type() arrow.DataType { return b.field.Type }
func (b *colBound) Nullable() bool       { return b.field.Nullable }
func (b *colBound) Eval(_ *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	a := rec.Column(b.index)
	a.Retain()
	return a, nil
}

type fieldBound struct {
	inner Bound
	index int
	field arrow.Field
}

func (b *fieldBound) Type() arrow.DataType { return b.field.Type }
func (b *fieldBound) Nullable() bool       { return true }
func (b *fieldBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.inner.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	return structField(c, in, b.index)
}

// Alias names an expression's result column.
type Alias struct {
	Expr Expr
	Name string
}

func (a *Alias) String() string                      { return a.Expr.String() + " AS " + a.Name }
func (a *Alias) Bind(s *arrow.Schema) (Bound, error) { return a.Expr.Bind(s) }

// Star stands for all columns ("*") or all fields of a struct ("data.*");
// projections expand it, it cannot be evaluated.
type Star struct {
	// Qualifier is the struct column name, or "" for all columns.
	Qualifier string
}

func (s *Star) String() string {
	if s.Qualifier == "" {
		return "*"
	}
	return s.Qualifier + ".*"
}

// Bind fails: a star is expanded by the projection that holds it.
func (s *Star) Bind(*arrow.Schema) (Bound, error) {
	return nil, fmt.Errorf("%s can only be used as a whole select item", s)
}

// Expand returns the expressions a star stands for in schema s.
func (s *Star) Expand(schema *arrow.Schema) ([]Expr, error) {
	if s.Qualifier == "" {
		out := make([]Expr, schema.NumFields())
		for i, f := range schema.Fields() {
			out[i] = &ColumnRef{Parts: []string{f.Name}, Ordinal: i + 1}
		}
		return out, nil
	}
	ref := Col(s.Qualifier)
	if len(ref.Parts) == 1 {
		var out []Expr
		for i, f := range schema.Fields() {
			if q := Qualifier(f); q != "" && strings.EqualFold(q, ref.Parts[0]) {
				out = append(out, &ColumnRef{Parts: []string{f.Name}, Ordinal: i + 1})
			}
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	b, err := ref.Bind(schema)
	if err != nil {
		if len(ref.Parts) == 1 {
			// "t.*" where t is a relation alias: all columns.
			return (&Star{}).Expand(schema)
		}
		return nil, err
	}
	st, ok := b.Type().(*arrow.StructType)
	if !ok {
		// "t.*" where t is a relation alias: all columns.
		if len(ref.Parts) == 1 {
			return (&Star{}).Expand(schema)
		}
		return nil, fmt.Errorf("cannot expand %s: %s is %s, not a struct", s, s.Qualifier, b.Type())
	}
	out := make([]Expr, st.NumFields())
	for i, f := range st.Fields() {
		parts := append(append([]string{}, ref.Parts...), f.Name)
		out[i] = &ColumnRef{Parts: parts}
	}
	return out, nil
}

// MetaWatermarkDelay is the Arrow field metadata key that marks the
// event-time column of a query (set by WithWatermark, carried through
// projections), the way Spark tags the attribute with its delay.
const MetaWatermarkDelay = "spark.watermarkDelayMs"

// MetaEventTimeWindow is the Arrow field metadata key that marks a column
// holding a tumbling window over the event time, selected by a projection
// (Select(Window(Col("ts"), "5 minutes").Alias("window"))): grouping by it
// is evicted by the watermark at each window's end, as grouping by the
// window itself.
const MetaEventTimeWindow = "atlas.eventTimeWindow"

// IsEventTimeWindow reports whether b reads a column marked with
// MetaEventTimeWindow.
func IsEventTimeWindow(b Bound) bool {
	f, ok := SourceField(b)
	return ok && f.HasMetadata() && f.Metadata.FindKey(MetaEventTimeWindow) >= 0
}

// SourceField returns the input field a bound expression reads unchanged
// (through a cast or a window's time column), if any.
func SourceField(b Bound) (arrow.Field, bool) {
	switch x := b.(type) {
	case *colBound:
		return x.field, true
	case *castBound:
		return SourceField(x.x)
	case *WindowBound:
		return SourceField(x.TimeCol)
	case *SessionBound:
		return SourceField(x.TimeCol)
	case *windowTimeBound:
		// window_time(window) stands for the window's event time.
		return SourceField(x.x)
	}
	return arrow.Field{}, false
}

// IsEventTime reports whether b reads the watermarked event-time column
// (directly or as a window over it).
func IsEventTime(b Bound) bool {
	f, ok := SourceField(b)
	return ok && f.HasMetadata() && f.Metadata.FindKey(MetaWatermarkDelay) >= 0
}
