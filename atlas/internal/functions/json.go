package functions

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// jsonDefs are Spark's JSON functions.
func jsonDefs() []*Def {
	return []*Def{{
		Name: "from_json", Group: "json", MinArgs: 2, MaxArgs: 3, Build: buildFromJSON,
		// Spark names the column after the JSON argument only:
		// from_json({"a":1}).
		ColumnName: func(name string, args []string) string { return name + "(" + args[0] + ")" },
	}}
}

// buildFromJSON is from_json(json, schema) in PERMISSIVE mode: a record
// that does not parse is NULL and counted in the progress metric
// numMalformedRows. The schema is a DDL string constant.
func buildFromJSON(_ string, args []expr.Expr) (expr.Expr, error) {
	if len(args) == 3 {
		return nil, fmt.Errorf("[UNSUPPORTED_FEATURE] The feature is not supported: from_json options (its third argument); parse with the defaults, or read the data with spark.read.json and its options. SQLSTATE: 0A000")
	}
	var ddl string
	lit, ok := args[1].(*expr.Literal)
	if ok {
		ddl, ok = lit.Value.(string)
	}
	if !ok {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] from_json: the schema (second argument) must be a string constant such as 'a INT, b STRING', got %s. SQLSTATE: 42K09", args[1])
	}
	schema, err := types.ParseDDL(ddl)
	if err != nil {
		return nil, fmt.Errorf("[PARSE_SYNTAX_ERROR] from_json: the schema %q: %w. SQLSTATE: 42601", ddl, err)
	}
	return &expr.FromJSON{X: args[0], Schema: schema}, nil
}
