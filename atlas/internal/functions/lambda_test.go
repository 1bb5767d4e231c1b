package functions_test

import "testing"

// TestLambdaFunctions checks the higher-order functions on hand-computed
// values: NULL elements and NULL lambda results, empty and NULL arrays,
// the index forms, nested lambdas reading an enclosing lambda's variable
// and shadowing it, lambdas reading a column of the input (over several
// rows), and Spark's errors.
func TestLambdaFunctions(t *testing.T) {
	checkValues(t, map[string]string{
		"transform(array(1, null, 3), x -> x * 2)":                                           "[2,null,6]",
		"transform(array(), x -> x)":                                                         "[]",
		"transform(CAST(NULL AS ARRAY<INT>), x -> x + 1)":                                    "NULL",
		"transform(array(1, 2), x -> CAST(NULL AS INT))":                                     "[null,null]",
		"transform(array(10, 20), (x, i) -> i)":                                              "[0,1]",
		"transform(array(array(1, 2), array(3)), a -> transform(a, x -> x + size(a)))":       "[[3,4],[4]]",
		"transform(array(1, 2), x -> transform(array(10), y -> x + y))":                      "[[11],[12]]",
		"transform(array(1, 2), x -> transform(array(10), x -> x))":                          "[[10],[10]]",
		"transform(array(1, 2), X -> x + 1)":                                                 "[2,3]",
		"transform(array(1, 2), x -> x + y) FROM VALUES (10), (20) AS t(y)":                  "[11,12] | [21,22]",
		"filter(array(1, null, 3), x -> x > 1)":                                              "[3]",
		"filter(array(), x -> true)":                                                         "[]",
		"filter(array(5, 6, 7), (x, i) -> i % 2 = 0)":                                        "[5,7]",
		"filter(CAST(NULL AS ARRAY<INT>), x -> true)":                                        "NULL",
		"exists(array(), x -> true)":                                                         "false",
		"exists(array(null, 1), x -> x > 0)":                                                 "true",
		"exists(array(null, 0), x -> x > 0)":                                                 "NULL",
		"forall(array(), x -> false)":                                                        "true",
		"forall(array(1, null), x -> x > 5)":                                                 "false",
		"forall(array(6, null), x -> x > 5)":                                                 "NULL",
		"exists(CAST(NULL AS ARRAY<INT>), x -> true)":                                        "NULL",
		"aggregate(array(), 0, (acc, x) -> acc + 1)":                                         "0",
		"aggregate(array(1, null, 3), 0, (acc, x) -> acc + x)":                               "NULL",
		"aggregate(array(1, null, 3), 0, (acc, x) -> acc + coalesce(x, 100))":                "104",
		"aggregate(array(1, 2, 3), 0, (acc, x) -> acc + x, acc -> acc * 10)":                 "60",
		"aggregate(array(1, 2, 3), 0L, (acc, x) -> acc + x)":                                 "6",
		"aggregate(array('a', 'b', 'c'), '', (acc, x) -> concat(acc, x))":                    "abc",
		"aggregate(CAST(NULL AS ARRAY<INT>), 0, (acc, x) -> acc + x)":                        "NULL",
		"reduce(array(1.5D, 2.5D), 0D, (acc, x) -> acc + x)":                                 "4.0",
		"aggregate(array(1, 2), y, (acc, x) -> acc + x * y) FROM VALUES (10), (100) AS t(y)": "40 | 400",
		"zip_with(array(1, 2, 3), array(10), (x, y) -> coalesce(y, 0) + x)":                  "[11,2,3]",
		"zip_with(array(1), CAST(NULL AS ARRAY<INT>), (x, y) -> x)":                          "NULL",
		"zip_with(array(), array(), (x, y) -> x)":                                            "[]",
		"array_sort(array(3, 1, 2), (l, r) -> r - l)":                                        "[3,2,1]",
		"array_sort(array(3, null, 1), (l, r) -> case when l is null then 1 when r is null then -1 when l < r then -1 when l > r then 1 else 0 end)": "[1,3,null]",
		"array_sort(array('b', 'a', 'c'), (l, r) -> 0)":                                                       `["b","a","c"]`,
		"array_sort(array(), (l, r) -> 0)":                                                                    "[]",
		"array_sort(array(2, 1, 3))":                                                                          "[1,2,3]",
		"map_filter(map(1, 0, 2, 2, 3, -1), (k, v) -> k > v)":                                                 "{1:0,3:-1}",
		"map_filter(map(1, null, 2, 'b'), (k, v) -> v is null)":                                               "{1:null}",
		"map_filter(map(), (k, v) -> true)":                                                                   "{}",
		"transform_values(map('a', 1, 'b', 2), (k, v) -> v * 10)":                                             `{"a":10,"b":20}`,
		"transform_values(map('a', 1), (k, v) -> CAST(NULL AS INT))":                                          `{"a":null}`,
		"transform_keys(map(1, 'a', 2, 'b'), (k, v) -> k * 10)":                                               `{10:"a",20:"b"}`,
		"map_zip_with(map(1, 'a'), map(2, 'b'), (k, v1, v2) -> concat(coalesce(v1, '-'), coalesce(v2, '-')))": `{1:"a-",2:"-b"}`,
		"map_zip_with(map(1, 'a'), CAST(NULL AS MAP<INT, STRING>), (k, v1, v2) -> v1)":                        "NULL",
	})
	checkErrors(t, map[string]string{
		"transform(array(1), (x, i, j) -> x)":                      "NUM_ARGS_MISMATCH",
		"zip_with(array(1), array(2), x -> x)":                     "NUM_ARGS_MISMATCH",
		"filter(array(1), x -> x)":                                 "must return a boolean",
		"aggregate(array(1.5D), 0, (acc, x) -> acc + x)":           "DATATYPE_MISMATCH",
		"transform(array(1), 1)":                                   "must be a lambda function",
		"x -> x":                                                   "INVALID_LAMBDA_FUNCTION_CALL",
		"transform(array(1), (x, X) -> x)":                         "duplicate arguments",
		"array_sort(array(2, 1), (l, r) -> CAST(NULL AS INT))":     "COMPARATOR_RETURNS_NULL",
		"array_sort(array(2, 1), (l, r) -> 'a')":                   "must return an integer",
		"transform_keys(map(1, 'a', 2, 'b'), (k, v) -> 0)":         "DUPLICATED_MAP_KEY",
		"transform_keys(map(1, 'a'), (k, v) -> CAST(NULL AS INT))": "NULL_MAP_KEY",
		"transform(array(1), x -> nope)":                           "nope",
	})
}
