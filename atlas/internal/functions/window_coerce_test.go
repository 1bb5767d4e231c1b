package functions_test

import (
	"strings"
	"testing"
)

// TestWindowOverStrings: window and session_window cast a string time
// column to a timestamp as Spark's implicit cast does (ANSI: malformed
// text fails), and a date to its midnight.
func TestWindowOverStrings(t *testing.T) {
	for q, want := range map[string]string{
		"w.start FROM (SELECT window('2021-01-01 00:04:30', '5 minutes') AS w)":        "2021-01-01 00:00:00",
		"w.end FROM (SELECT window('2021-01-01 00:06:00', '5 minutes') AS w)":          "2021-01-01 00:10:00",
		"w.end FROM (SELECT window(DATE'2021-01-01', '1 hour') AS w)":                  "2021-01-01 01:00:00",
		"w.end FROM (SELECT session_window('2021-01-01 00:04:30', '5 minutes') AS w)":  "2021-01-01 00:09:30",
		"w.start IS NULL FROM (SELECT window(CAST(NULL AS STRING), '5 minutes') AS w)": "true",
	} {
		_, _, val, err := cell(t, q)
		if err != nil || val != want {
			t.Errorf("%s = %s (%v), want %s", q, val, err, want)
		}
	}
	if _, _, val, err := cell(t, "w.start FROM (SELECT window('foo', '5 minutes') AS w)"); err == nil || !strings.Contains(err.Error(), "CAST_INVALID_INPUT") {
		t.Errorf("window('foo', ...) = %s, %v; want CAST_INVALID_INPUT", val, err)
	}
}
