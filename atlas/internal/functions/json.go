package functions

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

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

// buildFromJSON is from_json(json, schema[, options]) in PERMISSIVE mode:
// a record that does not parse is NULL and counted in the progress metric
// numMalformedRows. The schema is a DDL string constant. Schemas with
// arrays or maps, and calls with options, take the tree decoder
// (fromjson_tree.go); the others jsonx's streaming decoder.
func buildFromJSON(_ string, args []expr.Expr) (expr.Expr, error) {
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
	if len(args) == 3 || needsTreeDecoder(schema.Fields()) {
		e := &fromJSONTree{x: args[0], typ: arrow.StructOf(schema.Fields()...)}
		if len(args) == 3 {
			opts, err := constOptions("from_json", args[2])
			if err != nil {
				return nil, err
			}
			if err := e.setOptions(opts); err != nil {
				return nil, err
			}
		}
		return e, nil
	}
	return &expr.FromJSON{X: args[0], Schema: schema}, nil
}
