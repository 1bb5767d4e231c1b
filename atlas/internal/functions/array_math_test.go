package functions_test

import (
	"strings"
	"testing"
)

// TestArrayFunctions checks the array functions on Spark's documented
// examples and on NULL elements, NULL arrays and positions out of range.
func TestArrayFunctions(t *testing.T) {
	for e, want := range map[string]string{
		"array_append(array(1, 2, 3, null), null)":            "[1,2,3,null,null]",
		"array_append(CAST(null AS ARRAY<INT>), 2)":           "NULL",
		"array_prepend(array('b', 'd'), 'd')":                 `["d","b","d"]`,
		"array_compact(array(1, 2, 3, null))":                 "[1,2,3]",
		"array_contains(array(1, 2, 3), 2)":                   "true",
		"array_contains(array(1, null), 2)":                   "NULL",
		"array_contains(array(1, 3), 2)":                      "false",
		"array_distinct(array(1, 2, 3, null, 3))":             "[1,2,3,null]",
		"array_except(array(1, 2, 3), array(1, 3, 5))":        "[2]",
		"array_intersect(array(1, 2, 3), array(1, 3, 5))":     "[1,3]",
		"array_union(array(1, 2, 3), array(1, 3, 5))":         "[1,2,3,5]",
		"arrays_overlap(array(1, 2, 3), array(3, 4, 5))":      "true",
		"arrays_overlap(array(1, null), array(3))":            "NULL",
		"array_join(array('hello', null ,'world'), ' ')":      "hello world",
		"array_join(array('hello', null ,'world'), ' ', ',')": "hello , world",
		"array_max(array(1, 20, null, 3))":                    "20",
		"array_min(array(1, 20, null, 3))":                    "1",
		"array_position(array(312, 773, 708, 708), 708)":      "3",
		"array_position(array(312, 773), 414)":                "0",
		"array_remove(array(1, 2, 3, null, 3), 3)":            "[1,2,null]",
		"array_repeat('123', 2)":                              `["123","123"]`,
		"array_size(array('b', 'd', 'c', 'a'))":               "4",
		"flatten(array(array(1, 2), array(3, 4)))":            "[1,2,3,4]",
		"get(array(1, 2, 3), 0)":                              "1",
		"get(array(1, 2, 3), 3)":                              "NULL",
		"get(array(1, 2, 3), -1)":                             "NULL",
		"slice(array(1, 2, 3, 4), 2, 2)":                      "[2,3]",
		"slice(array(1, 2, 3, 4), -2, 2)":                     "[3,4]",
		"sort_array(array('b', 'd', null, 'c', 'a'), true)":   `[null,"a","b","c","d"]`,
		"sort_array(array('b', 'd', null, 'c', 'a'), false)":  `["d","c","b","a",null]`,
		"array_sort(array('b', null, 'a'))":                   `["a","b",null]`,
		"array_insert(array(1, 2, 3, 4), 5, 5)":               "[1,2,3,4,5]",
		"array_insert(array(5, 3, 2, 1), -4, 4)":              "[5,4,3,2,1]",
		"array_insert(array(5, 4, 3, 2), -1, 1)":              "[5,4,3,2,1]",
		"array_insert(array(1), 3, 9)":                        "[1,null,9]",
		"sequence(1, 5)":                                      "[1,2,3,4,5]",
		"sequence(5, 1)":                                      "[5,4,3,2,1]",
		"reverse(array(2, 1, 4, 3))":                          "[3,4,1,2]",
		"reverse('Spark SQL')":                                "LQS krapS",
	} {
		got, err := one(t, e)
		if err != nil {
			t.Errorf("SELECT %s: %v", e, err)
			continue
		}
		if got != want {
			t.Errorf("SELECT %s = %s, Spark gives %s", e, got, want)
		}
	}
	for e, want := range map[string]string{
		"slice(array(1, 2), 0, 1)":     "INVALID_PARAMETER_VALUE.START",
		"array_insert(array(1), 0, 1)": "INVALID_INDEX_OF_ZERO",
		"array_contains('abc', 'a')":   "requires an array",
	} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SELECT %s: got %v, want an error naming %s", e, err, want)
		}
	}
}

// TestMathMore checks abs, greatest/least, pmod, the try_ arithmetic,
// width_bucket, floor/ceil and the NULL replacements on Spark's examples
// and at the integer range's ends.
func TestMathMore(t *testing.T) {
	for e, want := range map[string]string{
		"abs(-1)":                            "1",
		"negative(1)":                        "-1",
		"positive(1)":                        "1",
		"greatest(10, 9, 2, 4, 3)":           "10",
		"least(10, 9, NULL, 4, 3)":           "3",
		"greatest(NULL, NULL)":               "NULL",
		"pmod(10, 3)":                        "1",
		"pmod(-10, 3)":                       "2",
		"try_add(1, 2)":                      "3",
		"try_add(2147483647, 1)":             "NULL",
		"try_add(9223372036854775807L, 1)":   "NULL",
		"try_add(DATE '2021-01-01', 1)":      "2021-01-02",
		"try_subtract(-2147483648, 1)":       "NULL",
		"try_subtract(DATE '2021-01-02', 1)": "2021-01-01",
		"try_multiply(-2147483648, 10)":      "NULL",
		"try_multiply(2, 3)":                 "6",
		"try_divide(3, 2)":                   "1.5",
		"try_divide(1, 0)":                   "NULL",
		"try_mod(3, 2)":                      "1",
		"try_mod(1, 0)":                      "NULL",
		"width_bucket(5.3, 0.2, 10.6, 5)":    "3",
		"width_bucket(-2.1, 1.3, 3.4, 3)":    "0",
		"width_bucket(8.1, 0.0, 5.7, 4)":     "5",
		"width_bucket(-0.9, 5.2, 0.5, 2)":    "3",
		"floor(5)":                           "5",
		"floor(-0.1D)":                       "-1",
		"ceil(-0.1D)":                        "0",
		"nanvl(cast('NaN' as double), 123)":  "123",
		"nullif(2, 2)":                       "NULL",
		"nullif(2, 3)":                       "2",
		"nvl2(NULL, 2, 1)":                   "1",
		"nullifzero(0)":                      "NULL",
		"zeroifnull(NULL)":                   "0",
	} {
		got, err := one(t, e)
		if err != nil {
			t.Errorf("SELECT %s: %v", e, err)
			continue
		}
		if got != want {
			t.Errorf("SELECT %s = %s, Spark gives %s", e, got, want)
		}
	}
	for e, want := range map[string]string{
		"abs(-2147483648)":      "ARITHMETIC_OVERFLOW",
		"negative(-2147483648)": "ARITHMETIC_OVERFLOW",
		"pmod(1, 0)":            "DIVIDE_BY_ZERO",
	} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SELECT %s: got %v, want %s", e, err, want)
		}
	}
}
