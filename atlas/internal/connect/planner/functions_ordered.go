package planner

import (
	"fmt"
	"strconv"
	"strings"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// orderedFunctionNames are the aggregates orderedFunction translates.
var orderedFunctionNames = []string{"mode", "median", "percentile", "max_by", "min_by", "try_sum", "try_avg", "histogram_numeric"}

// orderedFunction translates mode(col, lit(deterministic)), median(col),
// percentile(col, lit(p) or array, lit(1)), max_by/min_by(x, y[, lit(k)]),
// try_sum, try_avg and histogram_numeric(col, lit(nb)) as
// pyspark.sql.connect.functions sends them, named as Spark names them
// (the same aggregates as SQL's, see sql/agg_ordered.go). ok is false
// for other names.
func orderedFunction(name string, f *pb.Expression_UnresolvedFunction) (engine.Column, bool, error) {
	args := f.GetArguments()
	if !strings.Contains(" "+strings.Join(orderedFunctionNames, " ")+" ", " "+name+" ") {
		return engine.Column{}, false, nil
	}
	if len(args) == 0 {
		return engine.Column{}, true, wrongArgs(name, "at least 1", 0)
	}
	first, err := Column(args[0])
	if err != nil {
		return engine.Column{}, true, fmt.Errorf("%s: %w", name, err)
	}
	argName := first.String()
	one := func(opts expr.AggOptions, spark string) (engine.Column, bool, error) {
		return engine.Aggregate(name, []engine.Column{first}, opts, spark), true, nil
	}
	switch name {
	case "try_sum", "try_avg", "median":
		if len(args) != 1 {
			return engine.Column{}, true, wrongArgs(name, "1", len(args))
		}
		opts := expr.AggOptions{}
		if name == "median" {
			opts.Percentages = []float64{0.5}
		}
		return one(opts, name+"("+argName+")")
	case "mode":
		opts := expr.AggOptions{}
		if len(args) == 2 {
			det, ok := boolLiteral(args[1])
			if !ok {
				return engine.Column{}, true, fmt.Errorf("mode: deterministic must be a boolean literal")
			}
			opts.Ordered = det
		} else if len(args) > 2 {
			return engine.Column{}, true, wrongArgs(name, "[1, 2]", len(args))
		}
		if opts.Ordered {
			return one(opts, "mode() WITHIN GROUP (ORDER BY "+argName+" DESC)")
		}
		return one(opts, "mode("+argName+")")
	case "percentile":
		if len(args) < 2 || len(args) > 3 {
			return engine.Column{}, true, wrongArgs(name, "[2, 3]", len(args))
		}
		if len(args) == 3 {
			if fr, ok := numberLiteral(args[2]); !ok || fr != 1 {
				return engine.Column{}, true, unsupported("percentile with a frequency other than 1", "")
			}
		}
		opts := expr.AggOptions{}
		var pct string
		if p, ok := numberLiteral(args[1]); ok {
			opts.Percentages, pct = []float64{p}, strconv.FormatFloat(p, 'f', -1, 64)
		} else if ps, ok := numberArray(args[1]); ok {
			opts.Percentages, opts.PercentArray = ps, true
			parts := make([]string, len(ps))
			for i, p := range ps {
				parts[i] = strconv.FormatFloat(p, 'f', -1, 64)
			}
			pct = "array(" + strings.Join(parts, ", ") + ")"
		} else {
			return engine.Column{}, true, fmt.Errorf("percentile: the percentage must be a number or an array of numbers")
		}
		return one(opts, "percentile("+argName+", "+pct+", 1)")
	case "histogram_numeric":
		nb, ok := numberLiteral(args[len(args)-1])
		if len(args) != 2 || !ok || nb != float64(int32(nb)) {
			return engine.Column{}, true, fmt.Errorf("histogram_numeric takes a column and an integer literal number of bins")
		}
		return one(expr.AggOptions{Bins: int(nb)}, fmt.Sprintf("histogram_numeric(%s, %d)", argName, int(nb)))
	}
	// max_by, min_by
	if len(args) < 2 || len(args) > 3 {
		return engine.Column{}, true, wrongArgs(name, "[2, 3]", len(args))
	}
	ord, err := Column(args[1])
	if err != nil {
		return engine.Column{}, true, fmt.Errorf("%s: %w", name, err)
	}
	opts := expr.AggOptions{}
	spark := name + "(" + argName + ", " + ord.String()
	if len(args) == 3 {
		k, ok := numberLiteral(args[2])
		if !ok || k != float64(int64(k)) || k < 1 || k > 100000 {
			return engine.Column{}, true, fmt.Errorf("[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] the third argument of %s (k) must be an integer literal in [1, 100000]", name)
		}
		opts.K = int64(k)
		spark += fmt.Sprintf(", %d", opts.K)
	}
	return engine.Aggregate(name, []engine.Column{first, ord}, opts, spark+")"), true, nil
}

// wrongArgs is Spark's error for a call with the wrong number of
// arguments: want is Spark's wording of the accepted count ("1", "[2, 3]").
func wrongArgs(name, want string, got int) error {
	return sparkerr.New("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "The `%s` requires %s parameters but the actual number is %d.", name, want, got)
}
