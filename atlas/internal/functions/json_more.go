package functions

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/jsonx"
)

// jsonMoreDefs defines the json group beyond from_json: get_json_object,
// json_array_length, json_object_keys and schema_of_json.
func jsonMoreDefs() []*Def {
	return []*Def{
		row("get_json_object", "json", 2, 2, &rowImpl{resolve: sig(tString, tString, tString), mayBeNull: true, eval: func(v []any) (any, error) {
			path, ok := parseJSONPath(v[1].(string))
			if !ok {
				return nil, nil
			}
			if s, ok := getJSONObject(v[0].(string), path); ok {
				return s, nil
			}
			return nil, nil
		}}),
		row("json_array_length", "json", 1, 1, &rowImpl{resolve: sig(tInt, tString), mayBeNull: true, eval: func(v []any) (any, error) {
			doc, err := jsonx.ParseTree([]byte(v[0].(string)), sharedJSON)
			if err != nil || doc.Kind != jsonx.Array {
				return nil, nil
			}
			return int32(len(doc.Elems)), nil
		}}),
		row("json_object_keys", "json", 1, 1, &rowImpl{resolve: sig(arrow.ListOf(tString), tString), mayBeNull: true, eval: func(v []any) (any, error) {
			doc, err := jsonx.ParseTree([]byte(v[0].(string)), sharedJSON)
			if err != nil || doc.Kind != jsonx.Object {
				return nil, nil
			}
			keys := make([]any, len(doc.Keys))
			for i, k := range doc.Keys {
				keys[i] = k
			}
			return keys, nil
		}}),
		{Name: "to_json", Group: "json", MinArgs: 1, MaxArgs: 2, Build: buildToJSON, ColumnName: firstArgName},
		{Name: "schema_of_json", Group: "json", MinArgs: 1, MaxArgs: 2, Build: buildSchemaOfJSON,
			ColumnName: firstArgName},
	}
}

// firstArgName names a call after its first argument only, as Spark
// leaves options out of the names of to_json, schema_of_json, ...
func firstArgName(name string, args []string) string { return name + "(" + args[0] + ")" }

// buildSchemaOfJSON is schema_of_json(json[, options]): the DDL of the
// type Spark's JSON schema inference gives a constant JSON text.
func buildSchemaOfJSON(name string, args []expr.Expr) (expr.Expr, error) {
	doc, err := foldableString(name, args[0], "json")
	if err != nil {
		return nil, err
	}
	opts := jsonx.TreeOptions{SingleQuotes: true, NonNumeric: true}
	if len(args) == 2 {
		o, err := constOptions(name, args[1])
		if err != nil {
			return nil, err
		}
		for k, v := range o {
			switch k {
			case "allowNumericLeadingZeros":
				opts.LeadingZeros = v == "true"
			default:
				return nil, fmt.Errorf("[UNSUPPORTED_FEATURE] The feature is not supported: the %s option %q (Atlas knows allowNumericLeadingZeros). SQLSTATE: 0A000", name, k)
			}
		}
	}
	ddl, err := schemaOfJSON(doc, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &expr.Named{X: &expr.Literal{Value: ddl}, Name: name + "(" + args[0].String() + ")"}, nil
}

// foldableString returns the value of a constant string argument, or
// Spark's NON_FOLDABLE_INPUT error.
func foldableString(fn string, e expr.Expr, param string) (string, error) {
	if v, ok := literal(e); ok {
		if s, ok := v.(string); ok {
			return s, nil
		}
	}
	return "", fmt.Errorf("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] Cannot resolve \"%s(%s)\" due to data type mismatch: the input `%s` should be a foldable \"STRING\" expression; however, got %s. SQLSTATE: 42K09", fn, e, param, e)
}

// constOptions reads an options argument, map('key', 'value', ...) of
// constant strings, as Spark's ExprUtils.convertToMapData requires.
func constOptions(fn string, e expr.Expr) (map[string]string, error) {
	for {
		n, ok := e.(*expr.Named)
		if !ok {
			break
		}
		e = n.X
	}
	m, ok := e.(*expr.MakeMap)
	if ok {
		out := map[string]string{}
		for i := 0; i+1 < len(m.Args); i += 2 {
			k, kok := literal(m.Args[i])
			v, vok := literal(m.Args[i+1])
			ks, kstr := k.(string)
			vs, vstr := v.(string)
			if !kok || !vok || !kstr || !vstr {
				ok = false
				break
			}
			out[ks] = vs
		}
		if ok && len(m.Args)%2 == 0 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("[INVALID_OPTIONS.NON_STRING_TYPE] Invalid options: A type of keys and values in `map()` must be string, but got %s; %s takes its options as map('key', 'value', ...) of string constants. SQLSTATE: 42K06", e, fn)
}
