package functions

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// TimeTypeError is Spark's UNSUPPORTED_TIME_TYPE for what, something that
// needs Spark 4.1's TIME type, which Atlas does not have.
func TimeTypeError(what string) error {
	return fmt.Errorf("[UNSUPPORTED_TIME_TYPE] The data type TIME is not supported: Atlas has no TIME type, so it refuses %s. SQLSTATE: 0A000", what)
}

// timeTypeDefs are the functions of Spark 4.1's TIME type, each refused
// with UNSUPPORTED_TIME_TYPE naming it.
func timeTypeDefs() []*Def {
	refused := func(name string, minArgs, maxArgs int) *Def {
		return &Def{Name: name, Group: "datetime", MinArgs: minArgs, MaxArgs: maxArgs, Build: func(called string, _ []expr.Expr) (expr.Expr, error) {
			return nil, TimeTypeError("the function " + called + ", which works on TIME values")
		}}
	}
	return []*Def{
		refused("current_time", 0, 1),
		refused("make_time", 3, 3),
		refused("to_time", 1, 2),
		refused("try_to_time", 1, 2),
		refused("time_diff", 3, 3),
		refused("time_trunc", 2, 2),
		refused("time_from_seconds", 1, 1),
		refused("time_from_millis", 1, 1),
		refused("time_from_micros", 1, 1),
		refused("time_to_seconds", 1, 1),
		refused("time_to_millis", 1, 1),
		refused("time_to_micros", 1, 1),
	}
}
