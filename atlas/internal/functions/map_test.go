package functions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/conformance"
	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	sqlparser "github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// hive runs SELECT <e> and returns its first column in Spark's Hive style
// ({1:"a"}, [1,null], NULL; rows joined by " | "), with the column's Spark
// type.
func hive(t *testing.T, e string) (string, string, error) {
	t.Helper()
	st, err := sqlparser.Parse("SELECT " + e)
	if err != nil {
		return "", "", err
	}
	n, err := sql.PlanSelect(st.(*sqlparser.Select), func(*sqlparser.Name) (plan.Node, error) { return nil, nil })
	if err != nil {
		return "", "", err
	}
	schema, recs, err := exec.Collect(context.Background(), n)
	if err != nil {
		return "", "", err
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var rows []string
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			rows = append(rows, conformance.HiveValue(r.Column(0), i, true, time.UTC))
		}
	}
	return strings.Join(rows, " | "), conformance.ArrowTypeString(schema.Field(0).Type), nil
}

// checkValues runs every expression and compares its Hive-style value.
func checkValues(t *testing.T, cases map[string]string) {
	t.Helper()
	for e, want := range cases {
		got, _, err := hive(t, e)
		if err != nil {
			t.Errorf("SELECT %s: %v", e, err)
			continue
		}
		if got != want {
			t.Errorf("SELECT %s = %s, want %s", e, got, want)
		}
	}
}

// checkErrors runs every expression and wants an error containing the text.
func checkErrors(t *testing.T, cases map[string]string) {
	t.Helper()
	for e, want := range cases {
		if got, _, err := hive(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SELECT %s: got %s, %v; want an error naming %s", e, got, err, want)
		}
	}
}

// TestMapFunctions checks the map functions on Spark's documented
// examples, NULL maps, keys and values, empty maps, and Spark's errors for
// NULL and duplicate keys (spark.sql.mapKeyDedupPolicy=EXCEPTION).
func TestMapFunctions(t *testing.T) {
	checkValues(t, map[string]string{
		"map(1.0, '2', 3.0, '4')":                                 `{1.0:"2",3.0:"4"}`,
		"map(1, null)":                                            `{1:null}`,
		"map()":                                                   `{}`,
		"map(1, 'a', 2L, 'b')":                                    `{1:"a",2:"b"}`,
		"map_keys(map(1, 'a', 2, 'b'))":                           `[1,2]`,
		"map_values(map(1, 'a', 2, null))":                        `["a",null]`,
		"map_keys(map())":                                         `[]`,
		"map_entries(map(1, 'a', 2, 'b'))":                        `[{"key":1,"value":"a"},{"key":2,"value":"b"}]`,
		"map_from_arrays(array(1.0, 3.0), array('2', '4'))":       `{1.0:"2",3.0:"4"}`,
		"map_from_arrays(array(1), CAST(NULL AS ARRAY<INT>))":     `NULL`,
		"map_from_arrays(array(), array())":                       `{}`,
		"map_from_entries(array(struct(1, 'a'), struct(2, 'b')))": `{1:"a",2:"b"}`,
		"map_from_entries(array(struct(1, 'a'), null))":           `NULL`,
		"map_contains_key(map(1, 'a', 2, 'b'), 1)":                `true`,
		"map_contains_key(map(1, 'a', 2, 'b'), 3)":                `false`,
		"map_contains_key(map(1, 'a'), null)":                     `NULL`,
		"map_concat(map(1, 'a', 2, 'b'), map(3, 'c'))":            `{1:"a",2:"b",3:"c"}`,
		"map_concat(map(1, 'a'), CAST(NULL AS MAP<INT, STRING>))": `NULL`,
		"str_to_map('a')":                                         `{"a":null}`,
		"str_to_map('a:1,b:2,c:3', ',', ':')":                     `{"a":"1","b":"2","c":"3"}`,
		"str_to_map('a=1;b=2=3', ';', '=')":                       `{"a":"1","b":"2=3"}`,
		"str_to_map('a:1|b:2', '[|]', ':')":                       `{"a":"1","b":"2"}`,
		"str_to_map('')":                                          `{"":null}`,
		"str_to_map(null)":                                        `NULL`,
		"element_at(map(1, 'a', 2, 'b'), 2)":                      `b`,
		"element_at(map(1, 'a', 2, 'b'), 3)":                      `NULL`,
		"try_element_at(map(1, 'a', 2, 'b'), 2)":                  `b`,
		"element_at(map('a', 1), 'a')":                            `1`,
		"size(map('a', 1, 'b', 2))":                               `2`,
		"cardinality(map())":                                      `0`,
		"size(CAST(NULL AS MAP<INT, INT>))":                       `NULL`,
		"concat(array(1, 2, 3), array(4, 5), array(6))":           `[1,2,3,4,5,6]`,
		"concat(array(1, null), array())":                         `[1,null]`,
		"concat(array(1), CAST(NULL AS ARRAY<INT>))":              `NULL`,
		"concat(array(1), array(2L))":                             `[1,2]`,
		"concat('a', 'b')":                                        `ab`,
	})
	checkErrors(t, map[string]string{
		"map(1, 'a', 1, 'b')":                          "[DUPLICATED_MAP_KEY] Duplicate map key 1 was found",
		"map(null, 'a')":                               "NULL_MAP_KEY",
		"map(1, 'a', 2)":                               "WRONG_NUM_ARGS",
		"map_concat(map(1, 'a'), map(1, 'b'))":         "DUPLICATED_MAP_KEY",
		"map_from_arrays(array(1, 1), array(2, 3))":    "DUPLICATED_MAP_KEY",
		"map_from_arrays(array(1, null), array(2, 3))": "NULL_MAP_KEY",
		"map_from_arrays(array(1), array(2, 3))":       "same length",
		"str_to_map('a:1,a:2')":                        "DUPLICATED_MAP_KEY",
		"map_keys(array(1))":                           "requires a map",
		"concat(array(1), 'a')":                        "DATATYPE_MISMATCH",
	})
}
