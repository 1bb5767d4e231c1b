package sql

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// sketchAgg describes one sketch aggregate: how many columns it takes
// (tuple sketches take a key and a summary), its literal parameters after
// them with their defaults, as Spark names them in the result column.
type sketchAgg struct {
	cols   int
	params []sketchParam
}

// sketchParam is a literal parameter: lgK (an integer) or mode (a string).
type sketchParam struct {
	name string // "lgK" or "mode"
	def  string // Spark's default, as it appears in the column name
}

var (
	lgKParam   = sketchParam{"lgK", strconv.Itoa(sketch.DefaultLgK)}
	modeParam  = sketchParam{"mode", "sum"}
	allowParam = sketchParam{"allow", "false"}
	kParam     = sketchParam{"k", ""} // Spark's name leaves k out
	topKParam  = sketchParam{"topK", "5"}
	itemsParam = sketchParam{"maxItems", "10000"}
)

// sketchAggregates are the sketch aggregate functions.
var sketchAggregates = map[string]sketchAgg{
	"hll_sketch_agg":                 {1, []sketchParam{lgKParam}},
	"approx_top_k":                   {1, []sketchParam{topKParam, itemsParam}},
	"count_min_sketch":               {1, []sketchParam{{"eps", ""}, {"confidence", ""}, {"seed", ""}}},
	"approx_top_k_accumulate":        {1, []sketchParam{itemsParam}},
	"approx_top_k_combine":           {1, []sketchParam{{"maxItems", ""}}},
	"kll_sketch_agg_bigint":          {1, []sketchParam{kParam}},
	"kll_sketch_agg_float":           {1, []sketchParam{kParam}},
	"kll_sketch_agg_double":          {1, []sketchParam{kParam}},
	"kll_merge_agg_bigint":           {1, []sketchParam{kParam}},
	"kll_merge_agg_float":            {1, []sketchParam{kParam}},
	"kll_merge_agg_double":           {1, []sketchParam{kParam}},
	"hll_union_agg":                  {1, []sketchParam{allowParam}},
	"theta_sketch_agg":               {1, []sketchParam{lgKParam}},
	"theta_union_agg":                {1, []sketchParam{lgKParam}},
	"theta_intersection_agg":         {1, nil},
	"tuple_sketch_agg_double":        {2, []sketchParam{lgKParam, modeParam}},
	"tuple_sketch_agg_integer":       {2, []sketchParam{lgKParam, modeParam}},
	"tuple_union_agg_double":         {1, []sketchParam{lgKParam, modeParam}},
	"tuple_union_agg_integer":        {1, []sketchParam{lgKParam, modeParam}},
	"tuple_intersection_agg_double":  {1, []sketchParam{modeParam}},
	"tuple_intersection_agg_integer": {1, []sketchParam{modeParam}},
}

// The sketch aggregates are SQL aggregates: Agg plans them (planSketchAgg).
func init() {
	for n, d := range sketchAggregates {
		sqlAggregates[n] = [2]int{d.cols, d.cols + len(d.params)}
	}
}

// planSketchAgg plans a sketch aggregate; ok is false for another name.
func planSketchAgg(c *parser.Call, name, alias string) (*expr.AggFunc, bool, error) {
	d, ok := sketchAggregates[name]
	if !ok {
		return nil, false, nil
	}
	minArgs := d.cols
	if name == "count_min_sketch" {
		minArgs = 4 // eps, confidence and seed have no defaults
	}
	if c.Star || c.Distinct || len(c.Args) < minArgs || len(c.Args) > d.cols+len(d.params) {
		return nil, true, errAt(c, "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `%s` requires %s parameters but the actual number is %d. SQLSTATE: 42605", name, argCount([2]int{d.cols, d.cols + len(d.params)}), len(c.Args))
	}
	cols := make([]expr.Expr, d.cols)
	for i := range cols {
		var err error
		if cols[i], err = Expr(c.Args[i]); err != nil {
			return nil, true, err
		}
	}
	a := &expr.AggFunc{Fn: name, Arg: cols[0], As: alias}
	if d.cols == 2 {
		a.Arg = &expr.MakeStruct{Names: []string{"key", "summary"}, Args: cols}
	}
	a.Opts.Sketch = expr.SketchOptions{LgK: sketch.DefaultLgK, Mode: "sum"}
	if strings.HasPrefix(name, "kll_sketch_agg_") {
		a.Opts.Sketch.K = sketch.DefaultKLLK
	}
	if name == "approx_top_k" || name == "approx_top_k_accumulate" {
		a.Opts.Sketch.TopK, a.Opts.Sketch.MaxItems = 5, 10000
	}
	for i, p := range d.params {
		at := d.cols + i
		if at >= len(c.Args) {
			break
		}
		switch p.name {
		case "lgK":
			n, err := intArg(c, at, "lgNomEntries")
			if err != nil {
				return nil, true, err
			}
			if err := checkSketchLgK(name, n); err != nil {
				return nil, true, errAt(c.Args[at], "%v", err)
			}
			a.Opts.Sketch.LgK = n
		case "mode":
			lit, ok := c.Args[at].(*parser.Literal)
			if !ok || lit.Kind != parser.StringLiteral {
				return nil, true, errAt(c.Args[at], "the mode of %s must be a string literal, got %s", name, c.Args[at].SQL())
			}
			if _, err := sketch.ParseMode(name, lit.Value.(string)); err != nil {
				return nil, true, errAt(c.Args[at], "%v", err)
			}
			a.Opts.Sketch.Mode = lit.Value.(string)
		case "k":
			n, err := intArg(c, at, "k")
			if err != nil {
				return nil, true, err
			}
			if err := sketch.CheckKLLK(name, n); err != nil {
				return nil, true, errAt(c.Args[at], "%v", err)
			}
			a.Opts.Sketch.K = n
		case "eps", "confidence":
			lit, ok := c.Args[at].(*parser.Literal)
			v, isNum := literalValue(lit, ok).(float64)
			if !isNum {
				return nil, true, errAt(c.Args[at], "the %s of %s must be a number literal, got %s", p.name, name, c.Args[at].SQL())
			}
			if p.name == "eps" {
				a.Opts.Sketch.Eps = v
			} else {
				a.Opts.Sketch.Confidence = v
			}
		case "seed":
			n, err := intArg(c, at, "the seed")
			if err != nil {
				return nil, true, err
			}
			a.Opts.Sketch.Seed = n
		case "topK", "maxItems":
			n, err := intArg(c, at, p.name)
			if err != nil {
				return nil, true, err
			}
			if p.name == "topK" {
				a.Opts.Sketch.TopK = n
			} else {
				a.Opts.Sketch.MaxItems = n
			}
		case "allow":
			lit, ok := c.Args[at].(*parser.Literal)
			b, isBool := literalValue(lit, ok).(bool)
			if !isBool {
				return nil, true, errAt(c.Args[at], "allowDifferentLgConfigK of %s must be a boolean literal, got %s", name, c.Args[at].SQL())
			}
			a.Opts.Sketch.AllowDifferentLgK = b
		}
	}
	if name == "count_min_sketch" {
		if _, err := sketch.NewCountMin(a.Opts.Sketch.Eps, a.Opts.Sketch.Confidence, int32(a.Opts.Sketch.Seed)); err != nil {
			return nil, true, errAt(c, "%v", err)
		}
	}
	if err := checkTopK(name, a.Opts.Sketch); err != nil {
		return nil, true, errAt(c, "%v", err)
	}
	if a.As == "" || a.As == c.String() {
		args := make([]string, len(c.Args))
		for i, x := range c.Args {
			args[i] = x.String()
		}
		a.As, _ = sketchCallName(name, args)
	}
	return a, true, nil
}

// sketchCallName is Spark's column name for a sketch aggregate: its
// arguments with the defaults of the parameters left out.
func sketchCallName(name string, args []string) (string, bool) {
	d, ok := sketchAggregates[name]
	if !ok {
		return "", false
	}
	for i := len(args) - d.cols; i >= 0 && i < len(d.params) && d.params[i].def != ""; i++ {
		args = append(args, d.params[i].def)
	}
	return name + "(" + strings.Join(args, ", ") + ")", true
}

// checkSketchLgK checks an lgK parameter: lgConfigK for hll, lgNomEntries
// for theta and tuple sketches.
func checkSketchLgK(name string, n int64) error {
	if strings.HasPrefix(name, "hll_") {
		_, err := sketch.NewHLL(name, n)
		return err
	}
	return sketch.CheckLgK(name, n)
}

// checkTopK checks approx_top_k's k and maxItemsTracked as Spark does.
func checkTopK(name string, o expr.SketchOptions) error {
	if !strings.HasPrefix(name, "approx_top_k") {
		return nil
	}
	if name == "approx_top_k" && o.TopK <= 0 {
		return fmt.Errorf("[APPROX_TOP_K_NON_POSITIVE_ARG] The value of k in approx_top_k must be a positive integer, but got %d. SQLSTATE: 22023", o.TopK)
	}
	if name == "approx_top_k_combine" && o.MaxItems == 0 {
		return nil // the inputs' size
	}
	switch {
	case o.MaxItems > 1000000:
		return fmt.Errorf("[APPROX_TOP_K_MAX_ITEMS_TRACKED_EXCEEDS_LIMIT] The max items tracked `maxItemsTracked`(%d) of approx_top_k should be less than or equal to 1000000. SQLSTATE: 22023", o.MaxItems)
	case o.MaxItems <= 0:
		return fmt.Errorf("[APPROX_TOP_K_NON_POSITIVE_ARG] The value of maxItemsTracked in %s must be a positive integer, but got %d. SQLSTATE: 22023", name, o.MaxItems)
	case name == "approx_top_k" && o.MaxItems < o.TopK:
		return fmt.Errorf("[APPROX_TOP_K_MAX_ITEMS_TRACKED_LESS_THAN_K] The max items tracked `maxItemsTracked`(%d) of approx_top_k should be larger than or equal to `k`(%d). SQLSTATE: 22023", o.MaxItems, o.TopK)
	}
	return nil
}
