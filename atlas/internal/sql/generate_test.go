package sql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// TestGeneratorsInSelect: explode, posexplode, inline (each also _outer)
// and stack in a SQL select list, with Spark's column names and the other
// items repeated. Expected rows are worked by hand from Spark's Generate
// semantics: no row for a null or empty array unless _outer, which gives
// one row of NULLs; positions count from 0; a null struct gives a row of
// NULLs in inline; stack pads its last row with NULL.
func TestGeneratorsInSelect(t *testing.T) {
	const xs = "FROM VALUES (1, array(10, 20)), (2, CAST(array() AS ARRAY<INT>)), (3, CAST(NULL AS ARRAY<INT>)) AS t(k, xs)"
	cases := []struct{ q, schema, rows string }{
		{"SELECT explode(array(10, 20))", "col:int32:true", "10|20"},
		{"SELECT explode(array(10, 20)) AS v", "v:int32:true", "10|20"},
		{"SELECT k, explode(xs) " + xs, "k:int32:false col:int32:true", "1,10|1,20"},
		{"SELECT k, explode_outer(xs) " + xs, "k:int32:false col:int32:true", "1,10|1,20|2,NULL|3,NULL"},
		{"SELECT posexplode(xs), k " + xs, "pos:int32:false col:int32:true k:int32:false", "0,10,1|1,20,1"},
		{"SELECT posexplode_outer(xs), k " + xs, "pos:int32:true col:int32:true k:int32:false", "0,10,1|1,20,1|NULL,NULL,2|NULL,NULL,3"},
		{"SELECT inline(array(struct(1, 'a'), struct(2, 'b')))", "col1:int32:true col2:utf8:true", "1,a|2,b"},
		{"SELECT inline(array(named_struct('x', 1), NULL))", "x:int32:true", "1|NULL"},
		{"SELECT inline_outer(CAST(array() AS ARRAY<STRUCT<x: INT>>))", "x:int32:true", "NULL"},
		{"SELECT stack(2, 1, 2, 3)", "col0:int32:true col1:int32:true", "1,2|3,NULL"},
		{"SELECT stack(3, 'a', NULL, 'c')", "col0:utf8:true", "a|NULL|c"},
		{"SELECT k, stack(1, k, k * 10) FROM VALUES (1), (2) AS t(k)", "k:int32:false col0:int32:true col1:int32:true", "1,1,10|2,2,20"},
	}
	for _, c := range cases {
		schema, rows, err := query(t, c.q)
		if err != nil || schema != c.schema || rows != c.rows {
			t.Errorf("%s:\n got %s / %s (%v)\nwant %s / %s", c.q, schema, rows, err, c.schema, c.rows)
		}
	}
	for q, want := range map[string]string{
		"SELECT explode(array(1)), explode(array(2))": "MULTI_GENERATOR",
		"SELECT posexplode(array(1)) AS p":            "UDTF_ALIAS_NUMBER_MISMATCH",
		"SELECT explode(array(1)) + 1":                "OUTSIDE_SELECT",
		"SELECT inline(array(1))":                     "an array of structs",
		"SELECT stack(2, 1, 'a', 2, 3)":               "STACK_COLUMN_DIFF_TYPES",
		"SELECT stack(0, 1)":                          "positive",
	} {
		if _, _, err := query(t, q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %s", q, err, want)
		}
	}
}

// TestExplodeMap: explode and posexplode of a map give key and value
// columns, one row per entry in the map's order.
func TestExplodeMap(t *testing.T) {
	mt := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	b := array.NewMapBuilderWithType(memory.DefaultAllocator, mt)
	defer b.Release()
	kb, vb := b.KeyBuilder().(*array.StringBuilder), b.ItemBuilder().(*array.Int64Builder)
	b.Append(true)
	kb.Append("a")
	vb.Append(1)
	kb.Append("b")
	vb.Append(2)
	b.AppendNull()
	m := b.NewArray()
	defer m.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "m", Type: mt, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{m}, 2)
	defer rec.Release()
	tables := func(*parser.Name) (plan.Node, error) {
		return &plan.LocalScan{Name: "t", Out: schema, Records: []arrow.RecordBatch{rec}}, nil
	}
	for q, want := range map[string]string{
		"SELECT explode(m) FROM t":          "key:utf8:true value:int64:true a,1|b,2",
		"SELECT posexplode_outer(m) FROM t": "pos:int32:true key:utf8:true value:int64:true 0,a,1|1,b,2|NULL,NULL,NULL",
	} {
		st, err := parser.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		n, err := sql.PlanSelect(st.(*parser.Select), tables)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		out, recs, err := exec.Collect(context.Background(), n)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		var cols, rows []string
		for _, f := range out.Fields() {
			cols = append(cols, fmt.Sprintf("%s:%s:%v", f.Name, f.Type, f.Nullable))
		}
		for _, r := range recs {
			for i := 0; i < int(r.NumRows()); i++ {
				var cells []string
				for j := 0; j < int(r.NumCols()); j++ {
					cells = append(cells, cell(r.Column(j), i))
				}
				rows = append(rows, strings.Join(cells, ","))
			}
			r.Release()
		}
		if got := strings.Join(cols, " ") + " " + strings.Join(rows, "|"); got != want {
			t.Errorf("%s:\n got %s\nwant %s", q, got, want)
		}
	}
}

// TestNamedArgumentsResolve: named arguments match Spark's parameter
// names (explode's collection, inline's input); unknown or doubled names
// and functions that take no named arguments are refused with Spark's
// error classes.
func TestNamedArgumentsResolve(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT explode(collection => array(10, 20))":             "col:int32:true 10|20",
		"SELECT posexplode(COLLECTION => array(7))":               "pos:int32:false col:int32:true 0,7",
		"SELECT inline(input => array(struct(1, 'a')))":           "col1:int32:true col2:utf8:true 1,a",
		"SELECT explode(array(1), collection => array(2))":        "BOTH_POSITIONAL_AND_NAMED",
		"SELECT explode(collection => array(1), collection => 1)": "DOUBLE_NAMED_ARGUMENT_REFERENCE",
		"SELECT explode(input => array(1))":                       "UNRECOGNIZED_PARAMETER_NAME",
		"SELECT upper(str => 'a')":                                "NAMED_PARAMETERS_NOT_SUPPORTED",
		"SELECT count(x => 1)":                                    "NAMED_PARAMETERS_NOT_SUPPORTED",
	} {
		schema, rows, err := query(t, q)
		got := schema + " " + rows
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, want) {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
}

// TestTimeTypeRefused: the TIME type's literals and functions are refused
// with Spark's UNSUPPORTED_TIME_TYPE naming the call, not a syntax error.
func TestTimeTypeRefused(t *testing.T) {
	for q, want := range map[string]string{
		"SELECT TIME '09:08:01'":                                   "the literal TIME '09:08:01'",
		"SELECT extract(HOUR FROM time '09:08:01.000001')":         "extract(...) of the literal TIME '09:08:01.000001'",
		"SELECT time_diff('HOUR', TIME'20:30:29', TIME'12:00:00')": "time_diff(...)",
		"SELECT make_time(6, 30, 45.887)":                          "the function make_time",
		"SELECT current_time":                                      "the function current_time",
		"SELECT to_time('00:12:00')":                               "the function to_time",
	} {
		_, _, err := query(t, q)
		if err == nil || !strings.Contains(err.Error(), "UNSUPPORTED_TIME_TYPE") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want UNSUPPORTED_TIME_TYPE naming %s", q, err, want)
		}
	}
}
