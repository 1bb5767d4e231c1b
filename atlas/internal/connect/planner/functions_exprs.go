package planner

import (
	"fmt"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/functions"
)

// exprFunctions translate the scalar functions of pyspark.sql.functions
// that PySpark's Connect client sends as UnresolvedFunction, by name, with
// their arguments encoded as PySpark does (literal patterns and indices
// as literals, when/otherwise as "when" over [cond, value, ..., else]).
// They are set in init: the translators call Column, which reaches this
// table through function.
var exprFunctions map[string]func(name string, args []*pb.Expression) (engine.Column, error)

func init() {
	exprFunctions = map[string]func(name string, args []*pb.Expression) (engine.Column, error){
		"when": when,
	}
}

// registered translates a call of a function of the registry (package
// functions), which SQL reaches too.
func registered(name string, args []*pb.Expression) (engine.Column, error) {
	cs, err := argColumns(name, args)
	if err != nil {
		return engine.Column{}, err
	}
	es := make([]expr.Expr, len(cs))
	for i, c := range cs {
		if es[i], err = c.ScalarExpr(); err != nil {
			return engine.Column{}, fmt.Errorf("%s: %w", name, err)
		}
	}
	e, err := functions.Call(name, es)
	if functions.IsRefused(err) {
		return engine.Column{}, unsupported("function "+name, err.Error())
	}
	if err != nil {
		return engine.Column{}, err
	}
	return engine.ColumnOf(e), nil
}

func argColumns(name string, args []*pb.Expression) ([]engine.Column, error) {
	out := make([]engine.Column, len(args))
	for i, a := range args {
		c, err := Column(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[i] = c
	}
	return out, nil
}

// when is F.when(c1, v1).when(c2, v2).otherwise(e): PySpark sends one
// "when" with arguments c1, v1, c2, v2[, e].
func when(name string, args []*pb.Expression) (engine.Column, error) {
	if len(args) < 2 {
		return engine.Column{}, fmt.Errorf("when takes a condition and a value, got %d arguments", len(args))
	}
	cs, err := argColumns(name, args)
	if err != nil {
		return engine.Column{}, err
	}
	out := engine.When(cs[0], cs[1])
	i := 2
	for ; i+1 < len(cs); i += 2 {
		out = out.When(cs[i], cs[i+1])
	}
	if i < len(cs) {
		out = out.Otherwise(cs[i])
	}
	return out, nil
}
