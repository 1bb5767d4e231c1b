package planner

import (
	"fmt"
	"sort"
	"strings"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/functions"
)

// binaryOps maps Spark's operator and function names (as the clients send
// them in UnresolvedFunction) to the engine's Column methods.
var binaryOps = map[string]func(a, b engine.Column) engine.Column{
	"==":  func(a, b engine.Column) engine.Column { return a.EqualTo(b) },
	"=":   func(a, b engine.Column) engine.Column { return a.EqualTo(b) },
	"!=":  func(a, b engine.Column) engine.Column { return a.NotEqual(b) },
	"<>":  func(a, b engine.Column) engine.Column { return a.NotEqual(b) },
	"<":   func(a, b engine.Column) engine.Column { return a.Lt(b) },
	"<=":  func(a, b engine.Column) engine.Column { return a.Leq(b) },
	">":   func(a, b engine.Column) engine.Column { return a.Gt(b) },
	">=":  func(a, b engine.Column) engine.Column { return a.Geq(b) },
	"and": func(a, b engine.Column) engine.Column { return a.And(b) },
	"or":  func(a, b engine.Column) engine.Column { return a.Or(b) },
	"+":   func(a, b engine.Column) engine.Column { return a.Plus(b) },
	"-":   func(a, b engine.Column) engine.Column { return a.Minus(b) },
	"*":   func(a, b engine.Column) engine.Column { return a.Multiply(b) },
	"/":   func(a, b engine.Column) engine.Column { return a.Divide(b) },
	"%":   func(a, b engine.Column) engine.Column { return a.Mod(b) },
}

// unaryFns are the one-argument functions other than aggregates.
var unaryFns = map[string]func(a engine.Column) engine.Column{
	"not":       engine.Not,
	"isnull":    func(a engine.Column) engine.Column { return a.IsNull() },
	"isnotnull": func(a engine.Column) engine.Column { return a.IsNotNull() },
}

// aggregates are Spark's aggregate functions the engine implements.
var aggregates = map[string]func(a engine.Column) engine.Column{
	"count": engine.Count,
	"sum":   engine.Sum,
	"avg":   engine.Avg,
	"mean":  engine.Avg,
	"min":   engine.Min,
	"max":   engine.Max,
}

// function translates an UnresolvedFunction call.
func function(f *pb.Expression_UnresolvedFunction) (engine.Column, error) {
	name := strings.ToLower(f.GetFunctionName())
	if f.GetIsUserDefinedFunction() {
		return engine.Column{}, unsupported("user-defined function "+f.GetFunctionName(), "")
	}
	if c, ok, err := statefulFunction(name, f); ok {
		return c, err
	}
	if c, ok, err := orderedFunction(name, f); ok {
		return c, err
	}
	args := f.GetArguments()
	if fn, ok := exprFunctions[name]; ok {
		return fn(name, args)
	}
	switch name { // before the registry, which refuses them in SQL
	case "from_avro":
		return fromAvro(args)
	case "to_avro":
		return toAvro(args)
	}
	if _, ok := functions.Lookup(name); ok {
		return registered(name, args)
	}
	switch name {
	case "window":
		return window(args)
	case "in":
		return in(args)
	}
	cols := make([]engine.Column, len(args))
	for i, a := range args {
		c, err := Column(a)
		if err != nil {
			return engine.Column{}, fmt.Errorf("%s: %w", name, err)
		}
		cols[i] = c
	}
	if op, ok := binaryOps[name]; ok && len(cols) == 2 {
		return op(cols[0], cols[1]), nil
	}
	if fn, ok := unaryFns[name]; ok && len(cols) == 1 {
		return fn(cols[0]), nil
	}
	if fn, ok := aggregates[name]; ok && len(cols) == 1 {
		return fn(cols[0]), nil
	}
	if name == "-" && len(cols) == 1 {
		return engine.Lit(0).Minus(cols[0]), nil
	}
	if name == "negative" && len(cols) == 1 {
		return engine.Lit(0).Minus(cols[0]), nil
	}
	if known(name) {
		return engine.Column{}, fmt.Errorf("%s takes a different number of arguments than %d", name, len(cols))
	}
	return engine.Column{}, unsupported("function "+f.GetFunctionName(), (&functions.UnresolvedRoutineError{Name: f.GetFunctionName()}).Error())
}

// Functions lists the Spark function names the planner translates.
func Functions() []string {
	var out []string
	for k := range binaryOps {
		out = append(out, k)
	}
	for k := range unaryFns {
		out = append(out, k)
	}
	for k := range aggregates {
		out = append(out, k)
	}
	for k := range exprFunctions {
		out = append(out, k)
	}
	out = append(out, functions.Names()...)
	out = append(out, "window", "from_avro", "to_avro", "in", "negative")
	out = append(out, statefulFunctionNames...)
	out = append(out, orderedFunctionNames...)
	sort.Strings(out)
	return out
}

func known(name string) bool {
	_, b := binaryOps[name]
	_, u := unaryFns[name]
	_, a := aggregates[name]
	return b || u || a
}

// window is window(timeColumn, windowDuration[, slideDuration[, startTime]])
// with the durations as string literals ("10 minutes").
func window(args []*pb.Expression) (engine.Column, error) {
	if len(args) < 2 || len(args) > 4 {
		return engine.Column{}, fmt.Errorf("window takes a time column and 1 to 3 durations, got %d arguments", len(args))
	}
	t, err := Column(args[0])
	if err != nil {
		return engine.Column{}, fmt.Errorf("window: %w", err)
	}
	durs := make([]any, 0, 3)
	for i, a := range args[1:] {
		s, ok := stringLiteral(a)
		if !ok {
			return engine.Column{}, fmt.Errorf("window: argument %d must be a duration string such as \"10 minutes\"", i+2)
		}
		durs = append(durs, s)
	}
	return engine.Window(t, durs[0], durs[1:]...), nil
}

// fromAvro is from_avro(data, jsonFormatSchema[, options]) as PySpark's
// Connect client sends it: the schema a string literal, the options a
// map(k1, v1, ...) call of string literals.
func fromAvro(args []*pb.Expression) (engine.Column, error) {
	if len(args) < 2 || len(args) > 3 {
		return engine.Column{}, fmt.Errorf("from_avro takes a column, a schema and options, got %d arguments", len(args))
	}
	c, err := Column(args[0])
	if err != nil {
		return engine.Column{}, fmt.Errorf("from_avro: %w", err)
	}
	schema, ok := stringLiteral(args[1])
	if !ok {
		return engine.Column{}, fmt.Errorf("from_avro: the schema must be a string literal (the Avro schema as JSON)")
	}
	opts := map[string]string{}
	if len(args) == 3 {
		if opts, err = literalMap(args[2]); err != nil {
			return engine.Column{}, fmt.Errorf("from_avro options: %w", err)
		}
	}
	return engine.FromAvro(c, schema, opts), nil
}

// toAvro is to_avro(data[, jsonFormatSchema]).
func toAvro(args []*pb.Expression) (engine.Column, error) {
	if len(args) < 1 || len(args) > 2 {
		return engine.Column{}, fmt.Errorf("to_avro takes a column and an optional schema, got %d arguments", len(args))
	}
	c, err := Column(args[0])
	if err != nil {
		return engine.Column{}, fmt.Errorf("to_avro: %w", err)
	}
	if len(args) == 1 {
		return engine.ToAvro(c), nil
	}
	schema, ok := stringLiteral(args[1])
	if !ok {
		return engine.Column{}, fmt.Errorf("to_avro: the schema must be a string literal (the Avro schema as JSON)")
	}
	return engine.ToAvro(c, schema), nil
}

// literalMap reads map(k1, v1, k2, v2, ...) of string literals, as
// PySpark sends an options dictionary (_options_to_col).
func literalMap(e *pb.Expression) (map[string]string, error) {
	f := e.GetUnresolvedFunction()
	if f == nil || !strings.EqualFold(f.GetFunctionName(), "map") || len(f.GetArguments())%2 != 0 {
		return nil, fmt.Errorf("want map(key, value, ...) of string literals")
	}
	out := map[string]string{}
	a := f.GetArguments()
	for i := 0; i < len(a); i += 2 {
		k, ok1 := stringLiteral(a[i])
		v, ok2 := stringLiteral(a[i+1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("want map(key, value, ...) of string literals")
		}
		out[k] = v
	}
	return out, nil
}

// in is col.isin(values...).
func in(args []*pb.Expression) (engine.Column, error) {
	if len(args) < 1 {
		return engine.Column{}, fmt.Errorf("in takes a column and values")
	}
	c, err := Column(args[0])
	if err != nil {
		return engine.Column{}, fmt.Errorf("in: %w", err)
	}
	vals := make([]any, len(args)-1)
	for i, a := range args[1:] {
		if vals[i], err = Column(a); err != nil {
			return engine.Column{}, fmt.Errorf("in: %w", err)
		}
	}
	return c.IsIn(vals...), nil
}

func stringLiteral(e *pb.Expression) (string, bool) {
	l := e.GetLiteral()
	if l == nil {
		return "", false
	}
	s, ok := l.GetLiteralType().(*pb.Expression_Literal_String_)
	if !ok {
		return "", false
	}
	return s.String_, true
}
