package functions

import (
	"fmt"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// Arrange puts the arguments of a call of name, some written as
// name => value (names[i] is the name of args[i], "" for a positional
// one), in the order of the function's parameters (Def.Params), as
// Spark's NamedParametersSupport does. Atlas knows no parameter defaults,
// so every parameter before the last one given must be given too.
func Arrange(name string, args []expr.Expr, names []string) ([]expr.Expr, error) {
	d, ok := Lookup(name)
	if !ok {
		return nil, &UnresolvedRoutineError{Name: name}
	}
	fn := strings.ToLower(name)
	if d.Params == nil {
		return nil, fmt.Errorf("[NAMED_PARAMETERS_NOT_SUPPORTED] Named parameters are not supported for function `%s`; please retry the query with positional arguments to the function call instead. SQLSTATE: 4274K", fn)
	}
	out := make([]expr.Expr, len(d.Params))
	last := -1
	for i, a := range args {
		n := ""
		if i < len(names) {
			n = names[i]
		}
		at := i
		if n != "" {
			at = paramIndex(d.Params, n)
			switch {
			case at < 0:
				return nil, fmt.Errorf("[UNRECOGNIZED_PARAMETER_NAME] Cannot invoke routine `%s` because the routine call included a named argument reference for the argument named `%s`, but this routine does not include any signature containing an argument with this name. Did you mean one of the following? [%s]. SQLSTATE: 4274K",
					fn, n, "`"+strings.Join(d.Params, "` `")+"`")
			case out[at] != nil && at < firstNamed(names):
				return nil, fmt.Errorf("[DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.BOTH_POSITIONAL_AND_NAMED] Call to routine `%s` is invalid because it includes multiple argument assignments to the same parameter name `%s`. A positional argument and named argument both referred to the same parameter. Please remove the named argument referring to this parameter. SQLSTATE: 4274K", fn, d.Params[at])
			case out[at] != nil:
				return nil, fmt.Errorf("[DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE] Call to routine `%s` is invalid because it includes multiple argument assignments to the same parameter name `%s`. More than one named argument referred to the same parameter. Please assign a value only once. SQLSTATE: 4274K", fn, d.Params[at])
			}
		} else if at >= len(out) {
			return nil, d.CheckArity(name, len(args))
		}
		out[at] = a
		last = max(last, at)
	}
	for i := 0; i <= last; i++ {
		if out[i] == nil {
			return nil, fmt.Errorf("[REQUIRED_PARAMETER_NOT_FOUND] Cannot invoke routine `%s` because the parameter named `%s` is required, but the routine call did not supply a value. Please update the routine call to supply an argument value (either positionally at index %d or by name) and retry the query again. SQLSTATE: 4274K", fn, d.Params[i], i)
		}
	}
	return out[:last+1], nil
}

// paramIndex finds a parameter by name, case-insensitively; -1 if none.
func paramIndex(params []string, name string) int {
	for i, p := range params {
		if strings.EqualFold(p, name) {
			return i
		}
	}
	return -1
}

// firstNamed is the index of the first named argument.
func firstNamed(names []string) int {
	for i, n := range names {
		if n != "" {
			return i
		}
	}
	return len(names)
}
