package planner

import (
	"fmt"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// statefulFunctionNames are the aggregate and session functions
// statefulFunction translates, as PySpark's Connect client names them.
var statefulFunctionNames = []string{
	"approx_count_distinct", "count(DISTINCT)", "collect_list", "collect_set", "first", "last",
	"percentile_approx", "approx_percentile", "stddev", "std", "stddev_samp", "stddev_pop",
	"variance", "var_samp", "var_pop", "session_window",
}

// statefulFunction translates the aggregates beyond count/sum/avg/min/max
// and session_window, as pyspark.sql.connect.functions sends them:
// approx_count_distinct(col[, lit(rsd)]), count(cols) with is_distinct,
// first/last(col, lit(ignorenulls)), percentile_approx(col, lit(p) or
// array(lit...) or an array literal, lit(accuracy)), session_window(col,
// lit("5 minutes") or a column). ok is false for other names.
func statefulFunction(name string, f *pb.Expression_UnresolvedFunction) (c engine.Column, ok bool, err error) {
	args := f.GetArguments()
	col := func(i int) (engine.Column, error) {
		if i >= len(args) {
			return engine.Column{}, fmt.Errorf("%s needs at least %d arguments, got %d", name, i+1, len(args))
		}
		c, err := Column(args[i])
		if err != nil {
			return engine.Column{}, fmt.Errorf("%s: %w", name, err)
		}
		return c, nil
	}
	if f.GetIsDistinct() {
		if name != "count" {
			return engine.Column{}, true, unsupported(name+"(DISTINCT ...)", "only count(DISTINCT ...) is")
		}
		if len(args) != 1 {
			return engine.Column{}, true, unsupported("count(DISTINCT ...) over several columns", "count the distinct values of one column")
		}
		c, err := col(0)
		return engine.CountDistinct(c), true, err
	}
	switch name {
	case "session_window":
		if len(args) != 2 {
			return engine.Column{}, true, fmt.Errorf("session_window takes a time column and a gap, got %d arguments", len(args))
		}
		c, err := col(0)
		if err != nil {
			return c, true, err
		}
		if s, isStr := stringLiteral(args[1]); isStr {
			return engine.SessionWindow(c, s), true, nil
		}
		gap, err := col(1)
		if err != nil {
			return gap, true, err
		}
		return engine.SessionWindow(c, gap), true, nil
	case "approx_count_distinct":
		c, err := col(0)
		if err != nil || len(args) == 1 {
			return engine.ApproxCountDistinct(c), true, err
		}
		rsd, isNum := numberLiteral(args[1])
		if !isNum || len(args) > 2 {
			return engine.Column{}, true, fmt.Errorf("approx_count_distinct takes a column and a numeric rsd literal")
		}
		return engine.ApproxCountDistinct(c, rsd), true, nil
	case "collect_list", "collect_set":
		c, err := col(0)
		if err == nil && len(args) != 1 {
			err = fmt.Errorf("%s takes one column, got %d arguments", name, len(args))
		}
		if name == "collect_list" {
			return engine.CollectList(c), true, err
		}
		return engine.CollectSet(c), true, err
	case "first", "last", "first_value", "last_value":
		c, err := col(0)
		if err != nil {
			return c, true, err
		}
		ignore := false
		if len(args) > 1 {
			b, isBool := boolLiteral(args[1])
			if !isBool || len(args) > 2 {
				return engine.Column{}, true, fmt.Errorf("%s takes a column and a boolean ignorenulls literal", name)
			}
			ignore = b
		}
		if name == "first" || name == "first_value" {
			return engine.First(c, ignore), true, nil
		}
		return engine.Last(c, ignore), true, nil
	case "percentile_approx", "approx_percentile":
		c, err := col(0)
		if err != nil {
			return c, true, err
		}
		if len(args) < 2 || len(args) > 3 {
			return engine.Column{}, true, fmt.Errorf("percentile_approx takes a column, a percentage and an accuracy, got %d arguments", len(args))
		}
		var pct any
		if p, isNum := numberLiteral(args[1]); isNum {
			pct = p
		} else if ps, isArr := numberArray(args[1]); isArr {
			pct = ps
		} else {
			return engine.Column{}, true, fmt.Errorf("percentile_approx: the percentage must be a number or an array of numbers between 0.0 and 1.0")
		}
		if len(args) == 2 {
			return engine.PercentileApprox(c, pct), true, nil
		}
		acc, isNum := numberLiteral(args[2])
		if !isNum || acc != float64(int64(acc)) {
			return engine.Column{}, true, fmt.Errorf("percentile_approx: the accuracy must be an integer literal")
		}
		return engine.PercentileApprox(c, pct, int64(acc)), true, nil
	case "stddev", "std", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop":
		c, err := col(0)
		if err == nil && len(args) != 1 {
			err = fmt.Errorf("%s takes one column, got %d arguments", name, len(args))
		}
		fn := map[string]func(engine.Column) engine.Column{
			"stddev": engine.Stddev, "std": engine.Stddev, "stddev_samp": engine.StddevSamp, "stddev_pop": engine.StddevPop,
			"variance": engine.Variance, "var_samp": engine.VarSamp, "var_pop": engine.VarPop,
		}[name]
		return fn(c), true, err
	}
	return engine.Column{}, false, nil
}

// numberLiteral reads a numeric literal as float64.
func numberLiteral(e *pb.Expression) (float64, bool) {
	return literalNumber(e.GetLiteral())
}

func literalNumber(l *pb.Expression_Literal) (float64, bool) {
	if l == nil {
		return 0, false
	}
	switch v := l.GetLiteralType().(type) {
	case *pb.Expression_Literal_Double:
		return v.Double, true
	case *pb.Expression_Literal_Float:
		return float64(v.Float), true
	case *pb.Expression_Literal_Integer:
		return float64(v.Integer), true
	case *pb.Expression_Literal_Long:
		return float64(v.Long), true
	case *pb.Expression_Literal_Short:
		return float64(v.Short), true
	case *pb.Expression_Literal_Byte:
		return float64(v.Byte), true
	}
	return 0, false
}

func boolLiteral(e *pb.Expression) (bool, bool) {
	v, ok := e.GetLiteral().GetLiteralType().(*pb.Expression_Literal_Boolean)
	if !ok {
		return false, false
	}
	return v.Boolean, true
}

// numberArray reads array(lit(0.25), lit(0.5)) (PySpark 3.5's lit of a
// list) or an array literal (PySpark 4).
func numberArray(e *pb.Expression) ([]float64, bool) {
	if fn := e.GetUnresolvedFunction(); fn != nil && fn.GetFunctionName() == "array" {
		out := make([]float64, 0, len(fn.GetArguments()))
		for _, a := range fn.GetArguments() {
			v, ok := numberLiteral(a)
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
		return out, len(out) > 0
	}
	arr := e.GetLiteral().GetArray()
	if arr == nil {
		return nil, false
	}
	out := make([]float64, 0, len(arr.GetElements()))
	for _, el := range arr.GetElements() {
		v, ok := literalNumber(el)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, len(out) > 0
}
