package planner

import (
	"fmt"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
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
		"when":              when,
		"coalesce":          variadicFn(engine.Coalesce, 1),
		"nvl":               variadicFn(engine.Coalesce, 2),
		"ifnull":            variadicFn(engine.Coalesce, 2),
		"concat":            variadicFn(engine.Concat, 0),
		"array":             variadicFn(engine.Array, 0),
		"upper":             unaryFn(engine.Upper),
		"ucase":             unaryFn(engine.Upper),
		"lower":             unaryFn(engine.Lower),
		"lcase":             unaryFn(engine.Lower),
		"trim":              unaryFn(engine.Trim),
		"size":              unaryFn(engine.Size),
		"cardinality":       unaryFn(engine.Size),
		"explode":           unaryFn(engine.Explode),
		"window_time":       unaryFn(engine.WindowTime),
		"explode_outer":     unaryFn(engine.ExplodeOuter),
		"concat_ws":         concatWs,
		"split":             split,
		"element_at":        elementAt(engine.ElementAt),
		"try_element_at":    elementAt(engine.TryElementAt),
		"to_timestamp":      toTimestamp(engine.ToTimestamp),
		"try_to_timestamp":  toTimestamp(engine.TryToTimestamp),
		"date_format":       dateFormat,
		"current_timestamp": noArgs(engine.CurrentTimestamp),
		"now":               noArgs(engine.CurrentTimestamp),
	}
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

func variadicFn(fn func(...engine.Column) engine.Column, minArgs int) func(string, []*pb.Expression) (engine.Column, error) {
	return func(name string, args []*pb.Expression) (engine.Column, error) {
		if len(args) < minArgs {
			return engine.Column{}, fmt.Errorf("%s takes at least %d arguments, got %d", name, minArgs, len(args))
		}
		cs, err := argColumns(name, args)
		if err != nil {
			return engine.Column{}, err
		}
		return fn(cs...), nil
	}
}

func unaryFn(fn func(engine.Column) engine.Column) func(string, []*pb.Expression) (engine.Column, error) {
	return func(name string, args []*pb.Expression) (engine.Column, error) {
		if len(args) != 1 {
			return engine.Column{}, fmt.Errorf("%s takes 1 argument, got %d", name, len(args))
		}
		cs, err := argColumns(name, args)
		if err != nil {
			return engine.Column{}, err
		}
		return fn(cs[0]), nil
	}
}

func noArgs(fn func() engine.Column) func(string, []*pb.Expression) (engine.Column, error) {
	return func(name string, args []*pb.Expression) (engine.Column, error) {
		if len(args) != 0 {
			return engine.Column{}, fmt.Errorf("%s takes no arguments, got %d", name, len(args))
		}
		return fn(), nil
	}
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

func concatWs(name string, args []*pb.Expression) (engine.Column, error) {
	if len(args) < 1 {
		return engine.Column{}, fmt.Errorf("concat_ws takes a separator and columns")
	}
	sep, ok := stringLiteral(args[0])
	if !ok {
		return engine.Column{}, unsupported("a concat_ws separator other than a string literal", "")
	}
	cs, err := argColumns(name, args[1:])
	if err != nil {
		return engine.Column{}, err
	}
	return engine.ConcatWs(sep, cs...), nil
}

// split is split(str, pattern[, limit]) with pattern and limit literals.
func split(name string, args []*pb.Expression) (engine.Column, error) {
	if len(args) < 2 || len(args) > 3 {
		return engine.Column{}, fmt.Errorf("split takes a column, a pattern and an optional limit, got %d arguments", len(args))
	}
	cs, err := argColumns(name, args[:1])
	if err != nil {
		return engine.Column{}, err
	}
	pattern, ok := stringLiteral(args[1])
	if !ok {
		return engine.Column{}, unsupported("a split pattern other than a string literal", "")
	}
	limit := -1
	if len(args) == 3 {
		n, ok := intLiteral(args[2])
		if !ok {
			return engine.Column{}, unsupported("a split limit other than an integer literal", "")
		}
		limit = int(n)
	}
	return engine.Split(cs[0], pattern, limit), nil
}

func intLiteral(e *pb.Expression) (int64, bool) {
	l := e.GetLiteral()
	if l == nil {
		return 0, false
	}
	switch x := l.GetLiteralType().(type) {
	case *pb.Expression_Literal_Integer:
		return int64(x.Integer), true
	case *pb.Expression_Literal_Long:
		return x.Long, true
	case *pb.Expression_Literal_Short:
		return int64(x.Short), true
	case *pb.Expression_Literal_Byte:
		return int64(x.Byte), true
	}
	return 0, false
}

func elementAt(fn func(engine.Column, any) engine.Column) func(string, []*pb.Expression) (engine.Column, error) {
	return func(name string, args []*pb.Expression) (engine.Column, error) {
		if len(args) != 2 {
			return engine.Column{}, fmt.Errorf("%s takes an array and an index, got %d arguments", name, len(args))
		}
		cs, err := argColumns(name, args)
		if err != nil {
			return engine.Column{}, err
		}
		return fn(cs[0], cs[1]), nil
	}
}

func toTimestamp(fn func(engine.Column, ...string) engine.Column) func(string, []*pb.Expression) (engine.Column, error) {
	return func(name string, args []*pb.Expression) (engine.Column, error) {
		if len(args) < 1 || len(args) > 2 {
			return engine.Column{}, fmt.Errorf("%s takes a column and an optional format, got %d arguments", name, len(args))
		}
		cs, err := argColumns(name, args[:1])
		if err != nil {
			return engine.Column{}, err
		}
		if len(args) == 1 {
			return fn(cs[0]), nil
		}
		f, ok := stringLiteral(args[1])
		if !ok {
			return engine.Column{}, unsupported("a "+name+" format other than a string literal", "")
		}
		return fn(cs[0], f), nil
	}
}

func dateFormat(name string, args []*pb.Expression) (engine.Column, error) {
	if len(args) != 2 {
		return engine.Column{}, fmt.Errorf("date_format takes a column and a format, got %d arguments", len(args))
	}
	cs, err := argColumns(name, args[:1])
	if err != nil {
		return engine.Column{}, err
	}
	f, ok := stringLiteral(args[1])
	if !ok {
		return engine.Column{}, unsupported("a date_format format other than a string literal", "")
	}
	return engine.DateFormat(cs[0], f), nil
}
