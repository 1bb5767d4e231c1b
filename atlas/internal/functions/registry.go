// Package functions is Atlas's registry of Spark's built-in functions: each
// function is defined once, by name and aliases, with its arity, and a
// builder that makes the expression evaluating it (package expr), which
// carries its argument coercions, result type, nullability, Spark's result
// column name and its evaluator over Arrow. The SQL planner
// (internal/sql) and the Spark Connect planner (UnresolvedFunction) both
// look functions up here, so a function is reachable from both or from
// neither.
//
// One file per function group of Spark's documentation: string.go,
// string_more.go, math.go, math_more.go, datetime.go, datetime_more.go,
// array.go, collection.go, conditional.go, regex.go (Java regular
// expressions through package javaregex, LIKE/ILIKE), fdlibm.go (tan as
// Java computes it), ...
//
// Aggregate, window and generator-as-relation functions are planned by
// their callers (aggregates: internal/sql's Agg and agg_more.go, state's
// accumulators); a name this registry does not know is refused with
// Spark's UNRESOLVED_ROUTINE error, naming the function.
package functions

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// Def is one Spark function.
type Def struct {
	// Name is Spark's name for the function, in lower case.
	Name string
	// Aliases are other names Spark accepts for it (ucase for upper).
	Aliases []string
	// Group is the function's group in Spark's documentation.
	Group string
	// MinArgs and MaxArgs bound the number of arguments; MaxArgs < 0
	// means any number from MinArgs on.
	MinArgs, MaxArgs int
	// Build makes the expression for a call. name is the name as called
	// (in lower case: Spark names the result column after it); arguments
	// that must be constants arrive as *expr.Literal.
	Build func(name string, args []expr.Expr) (expr.Expr, error)
	// ColumnName, when set, is Spark's name for the result column given
	// the name as called and the arguments' names; without it the column
	// is named name(arg1, arg2, ...) after the name as called.
	ColumnName func(name string, args []string) string
	// Params are Spark's names of the parameters, in order, for the
	// functions Spark lets calls name their arguments (explode(collection
	// => ...)); nil for the others (NAMED_PARAMETERS_NOT_SUPPORTED).
	Params []string
}

// groups lists the definitions of every group; each group's file adds one.
var groups = []func() []*Def{
	stringDefs, stringRowDefs, collectionDefs, conditionalDefs, datetimeDefs, dateRowDefs, timePartDefs, generatorDefs, mathDefs, predicateDefs, regexDefs, arrayDefs, mathMoreDefs, stringMoreDefs, datetimeMoreDefs, jsonDefs, roundingDefs,
	datetimeMakeDefs,
	formatDefs,
	hashDefs,
	urlDefs,
	miscDefs,
	jsonMoreDefs,
	csvDefs,
	lambdaDefs,
	mapDefs,
	mathExtraDefs,
	extractDefs,
	stringFormDefs,
	timeTypeDefs,
	refusedDefs,
	sketchDefs,
	intervalMoreDefs,
	variantDefs,
	xmlDefs,
	vectorDefs,
	miscMoreDefs,
}

// byName maps every name and alias (lower case) to its definition; it is
// built once and only read afterwards.
var byName = sync.OnceValue(func() map[string]*Def {
	m := map[string]*Def{}
	for _, g := range groups {
		for _, d := range g() {
			for _, n := range append([]string{d.Name}, d.Aliases...) {
				if _, dup := m[n]; dup {
					panic("functions: " + n + " is defined twice")
				}
				m[n] = d
			}
		}
	}
	return m
})

// Lookup finds a function by name or alias, case-insensitively.
func Lookup(name string) (*Def, bool) {
	d, ok := byName()[strings.ToLower(name)]
	return d, ok
}

// Defs returns every definition once, sorted by name.
func Defs() []*Def {
	seen := map[*Def]bool{}
	var out []*Def
	for _, d := range byName() {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns every name and alias, sorted.
func Names() []string {
	out := make([]string, 0, len(byName()))
	for n := range byName() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Call builds the expression for name(args...). An unknown name is
// Spark's UNRESOLVED_ROUTINE; a wrong number of arguments
// WRONG_NUM_ARGS.WITHOUT_SUGGESTION.
func Call(name string, args []expr.Expr) (expr.Expr, error) {
	d, ok := Lookup(name)
	if !ok {
		return nil, &UnresolvedRoutineError{Name: name}
	}
	if err := d.CheckArity(name, len(args)); err != nil {
		return nil, err
	}
	called := strings.ToLower(name)
	e, err := d.Build(called, args)
	if err != nil || (d.ColumnName == nil && called == d.Name) {
		return e, err
	}
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.String()
	}
	col, _ := ColumnName(called, names)
	return &expr.Named{X: e, Name: col}, nil
}

// ColumnName is Spark's name for the result column of a call of a
// registered function, given the arguments' names; ok is false for a
// name the registry does not define. The SQL planner names select items
// with it (parser.NameWith), the registry names the expressions it builds.
func ColumnName(name string, args []string) (string, bool) {
	d, ok := Lookup(name)
	if !ok {
		return "", false
	}
	name = strings.ToLower(name)
	if d.ColumnName != nil {
		return d.ColumnName(name, args), true
	}
	return name + "(" + strings.Join(args, ", ") + ")", true
}

// CheckArity returns Spark's WRONG_NUM_ARGS error when n arguments do
// not suit the function.
func (d *Def) CheckArity(name string, n int) error {
	if n >= d.MinArgs && (d.MaxArgs < 0 || n <= d.MaxArgs) {
		return nil
	}
	var want string
	switch {
	case d.MaxArgs < 0:
		want = fmt.Sprintf("> %d", d.MinArgs-1)
	case d.MinArgs == d.MaxArgs:
		want = fmt.Sprint(d.MinArgs)
	default:
		want = fmt.Sprintf("[%d, %d]", d.MinArgs, d.MaxArgs)
	}
	return fmt.Errorf("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `%s` requires %s parameters but the actual number is %d. SQLSTATE: 42605", strings.ToLower(name), want, n)
}

// UnresolvedRoutineError is Spark's UNRESOLVED_ROUTINE: a function name
// neither Spark's built-ins (as far as Atlas implements them) nor a
// registered function knows.
type UnresolvedRoutineError struct{ Name string }

func (e *UnresolvedRoutineError) Error() string {
	return fmt.Sprintf("[UNRESOLVED_ROUTINE] Cannot resolve routine `%s` on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]: Atlas does not implement the function %s. SQLSTATE: 42883", strings.ToLower(e.Name), strings.ToLower(e.Name))
}
