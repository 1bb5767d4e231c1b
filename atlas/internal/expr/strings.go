package expr

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Concat is Spark's concat(s1, s2, ...) over strings: NULL when any
// argument is NULL. Non-string arguments are cast to string first. Over
// arrays it is concat(a1, a2, ...): the elements of every array in order
// (concat_arrays.go).
type Concat struct{ Args []Expr }

func (e *Concat) String() string { return "concat(" + joinExprs(e.Args) + ")" }

// Bind resolves the arguments as strings.
func (e *Concat) Bind(s *arrow.Schema) (Bound, error) {
	if b, ok, err := bindConcatArrays(e, s); ok || err != nil {
		return b, err
	}
	args, err := bindStrings(e.Args, s, "concat")
	if err != nil {
		return nil, err
	}
	return &concatBound{args: args}, nil
}

// ConcatWs is Spark's concat_ws(sep, s1, s2, ...): the non-null arguments
// joined by sep, skipping NULLs (NULL only when sep is NULL). An argument
// that is an array of strings contributes its non-null elements.
type ConcatWs struct {
	Sep  Expr
	Args []Expr
}

func (e *ConcatWs) String() string {
	return "concat_ws(" + joinExprs(append([]Expr{e.Sep}, e.Args...)) + ")"
}

// Bind resolves the separator and arguments as strings.
func (e *ConcatWs) Bind(s *arrow.Schema) (Bound, error) {
	sep, err := bindStrings([]Expr{e.Sep}, s, "concat_ws")
	if err != nil {
		return nil, err
	}
	out := &concatBound{sep: sep[0]}
	for _, a := range e.Args {
		b, err := a.Bind(s)
		if err != nil {
			return nil, err
		}
		if lt, ok := b.Type().(*arrow.ListType); ok {
			if lt.Elem().ID() != arrow.STRING && lt.Elem().ID() != arrow.NULL {
				return nil, fmt.Errorf("concat_ws: %s is array<%s>; concat_ws takes strings and arrays of strings", a, types.Name(lt.Elem()))
			}
			out.args = append(out.args, castTo(b, StringListType))
			continue
		}
		one, err := bindStrings([]Expr{a}, s, "concat_ws")
		if err != nil {
			return nil, err
		}
		out.args = append(out.args, one[0])
	}
	return out, nil
}

func bindStrings(es []Expr, s *arrow.Schema, fn string) ([]Bound, error) {
	out := make([]Bound, len(es))
	for i, e := range es {
		b, err := e.Bind(s)
		if err != nil {
			return nil, err
		}
		if !isAtomic(b.Type()) {
			return nil, fmt.Errorf("%s: argument %d (%s) is %s; %s takes strings", fn, i+1, e, types.Name(b.Type()), fn)
		}
		if err := checkCastable(b.Type(), arrow.BinaryTypes.String); err != nil {
			return nil, fmt.Errorf("%s: %w", fn, err)
		}
		out[i] = castTo(b, arrow.BinaryTypes.String)
	}
	return out, nil
}

type concatBound struct {
	args []Bound
	sep  Bound // nil for concat
}

func (b *concatBound) Type() arrow.DataType { return arrow.BinaryTypes.String }
func (b *concatBound) Nullable() bool       { return true }
func (b *concatBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	cols := make([]strCol, len(b.args))
	for i, a := range b.args {
		v, err := a.Eval(c, rec)
		if err != nil {
			for _, p := range cols[:i] {
				p.arr.Release()
			}
			return nil, err
		}
		cols[i] = newStrCol(v)
	}
	defer func() {
		for _, p := range cols {
			p.arr.Release()
		}
	}()
	var sep *array.String
	if b.sep != nil {
		a, err := b.sep.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		sep = a.(*array.String)
	}
	n := int(rec.NumRows())
	out := array.NewStringBuilder(c.Mem)
	defer out.Release()
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.Reset()
		if sep == nil {
			null := false
			for _, col := range cols {
				if col.arr.IsNull(i) {
					null = true
					break
				}
				sb.WriteString(col.str.Value(i))
			}
			if null {
				out.AppendNull()
				continue
			}
			out.Append(sb.String())
			continue
		}
		if sep.IsNull(i) {
			out.AppendNull()
			continue
		}
		first := true
		write := func(v string) {
			if !first {
				sb.WriteString(sep.Value(i))
			}
			first = false
			sb.WriteString(v)
		}
		for _, col := range cols {
			if col.arr.IsNull(i) {
				continue
			}
			if col.list == nil {
				write(col.str.Value(i))
				continue
			}
			start, end := col.list.ValueOffsets(i)
			for j := start; j < end; j++ {
				if col.elems.IsValid(int(j)) {
					write(col.elems.Value(int(j)))
				}
			}
		}
		out.Append(sb.String())
	}
	return out.NewArray(), nil
}

// strCol is an evaluated argument of concat/concat_ws: a string column, or
// (concat_ws) an array<string> column.
type strCol struct {
	arr   arrow.Array
	str   *array.String
	list  *array.List
	elems *array.String
}

func newStrCol(a arrow.Array) strCol {
	if l, ok := a.(*array.List); ok {
		return strCol{arr: a, list: l, elems: l.ListValues().(*array.String)}
	}
	return strCol{arr: a, str: a.(*array.String)}
}

// StringFunc is a one-argument string function: upper, lower (Unicode case
// mapping, as Java's toUpperCase/toLowerCase in the root locale), trim,
// ltrim, rtrim. NULL stays NULL.
type StringFunc struct {
	Fn string
	X  Expr
}

var stringFuncs = map[string]func(string) string{
	"upper": upperRoot,
	"lower": lowerRoot,
	"trim":  func(s string) string { return strings.Trim(s, " ") },
	"ltrim": func(s string) string { return strings.TrimLeft(s, " ") },
	"rtrim": func(s string) string { return strings.TrimRight(s, " ") },
}

func (e *StringFunc) String() string { return e.Fn + "(" + e.X.String() + ")" }

// Bind resolves the argument as a string.
func (e *StringFunc) Bind(s *arrow.Schema) (Bound, error) {
	f, ok := stringFuncs[e.Fn]
	if !ok {
		return nil, fmt.Errorf("unknown string function %q", e.Fn)
	}
	args, err := bindStrings([]Expr{e.X}, s, e.Fn)
	if err != nil {
		return nil, err
	}
	return &stringMapBound{x: args[0], f: f}, nil
}

type stringMapBound struct {
	x Bound
	f func(string) string
}

func (b *stringMapBound) Type() arrow.DataType { return arrow.BinaryTypes.String }
func (b *stringMapBound) Nullable() bool       { return b.x.Nullable() }
func (b *stringMapBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	a, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	in := a.(*array.String)
	out := array.NewStringBuilder(c.Mem)
	defer out.Release()
	out.Reserve(in.Len())
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			out.AppendNull()
			continue
		}
		out.Append(b.f(in.Value(i)))
	}
	return out.NewArray(), nil
}

// Split is Spark's split(str, regex[, limit]): str cut around matches of
// regex into array<string>. With limit > 0 the array has at most limit
// entries, the last holding the rest of the string; with limit <= 0 (the
// default, -1) the regex is applied as often as possible and trailing
// empty strings are kept, as Spark does. The regex is Go's RE2 syntax,
// which agrees with Java's for the common cases (classes, alternation,
// quantifiers) but has no backreferences or lookaround.
type Split struct {
	X     Expr
	Regex string
	Limit int
}

func (e *Split) String() string {
	return fmt.Sprintf("split(%s, %s, %d)", e.X, e.Regex, e.Limit)
}

// StringListType is array<string>.
var StringListType = arrow.ListOf(arrow.BinaryTypes.String)

// Bind compiles the regex and resolves the argument as a string.
func (e *Split) Bind(s *arrow.Schema) (Bound, error) {
	re, err := regexp.Compile(e.Regex)
	if err != nil {
		return nil, fmt.Errorf("split: invalid regex %q: %w", e.Regex, err)
	}
	args, err := bindStrings([]Expr{e.X}, s, "split")
	if err != nil {
		return nil, err
	}
	return &splitBound{x: args[0], re: re, limit: e.Limit}, nil
}

type splitBound struct {
	x     Bound
	re    *regexp.Regexp
	limit int
}

func (b *splitBound) Type() arrow.DataType { return StringListType }
func (b *splitBound) Nullable() bool       { return b.x.Nullable() }
func (b *splitBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	a, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	in := a.(*array.String)
	lb := array.NewListBuilder(c.Mem, arrow.BinaryTypes.String)
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			lb.AppendNull()
			continue
		}
		lb.Append(true)
		for _, part := range splitJava(b.re, in.Value(i), b.limit) {
			vb.Append(part)
		}
	}
	return lb.NewArray(), nil
}

// splitJava splits as Java's String.split(regex, limit) with Spark's
// limit 0 read as -1: a zero-width match at the start gives no leading
// empty string, limit > 0 caps the number of parts.
func splitJava(re *regexp.Regexp, s string, limit int) []string {
	if s == "" {
		return []string{""}
	}
	n := -1
	if limit > 0 {
		n = limit
	}
	matches := re.FindAllStringIndex(s, -1)
	var out []string
	last := 0
	for _, m := range matches {
		if n > 0 && len(out) == n-1 {
			break
		}
		if m[1] == 0 {
			continue // zero-width match at the beginning: no leading empty string
		}
		if m[0] == m[1] && m[0] >= len(s) {
			break
		}
		out = append(out, s[last:m[0]])
		last = m[1]
	}
	return append(out, s[last:])
}

// upperRoot and lowerRoot map case as Java's toUpperCase/toLowerCase in the
// root locale (Spark 3.5's UTF8String) and ICU's (Spark 4's default,
// spark.sql.icu.caseMappings.enabled): with the special casings Go's
// per-rune strings.ToUpper lacks, so upper('straße') is 'STRASSE' and
// lower('ΟΔΟΣ') ends in a final sigma. ASCII text takes the fast path.
func upperRoot(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return cases.Upper(language.Und).String(s)
}

func lowerRoot(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return cases.Lower(language.Und).String(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
