package functions_test

import (
	"strings"
	"testing"
	"time"

	sqlparser "github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// TestYearMonthIntervals checks year-month interval literals, their names
// and text, arithmetic with dates and timestamps (java.time's plusMonths:
// the day clamped to the month's last; a wall clock in a gap of the
// session time zone moves past it) and date_part, against values worked
// out by hand.
func TestYearMonthIntervals(t *testing.T) {
	la := loadZone(t, "America/Los_Angeles")
	for _, c := range []struct {
		loc               *time.Location
		query, want, name string
	}{
		{time.UTC, "SELECT CAST(INTERVAL '2021-11' YEAR TO MONTH AS STRING)", "INTERVAL '2021-11' YEAR TO MONTH", ""},
		{time.UTC, "SELECT INTERVAL -'1-1' YEAR TO MONTH", "", "INTERVAL '-1-1' YEAR TO MONTH"},
		{time.UTC, "SELECT INTERVAL '1' YEAR", "", "INTERVAL '1' YEAR"},
		{time.UTC, "SELECT interval 2 month", "", "INTERVAL '2' MONTH"},
		{time.UTC, "SELECT interval 1 year 2 months", "", "INTERVAL '1-2' YEAR TO MONTH"},
		{time.UTC, "SELECT CAST(interval '-14 months' AS STRING)", "INTERVAL '-1-2' YEAR TO MONTH", ""},
		{time.UTC, "SELECT CAST(DATE '2021-01-31' + INTERVAL '1' MONTH AS STRING)", "2021-02-28", ""},
		{time.UTC, "SELECT CAST(DATE '2020-02-29' + INTERVAL '1' YEAR AS STRING)", "2021-02-28", ""},
		{time.UTC, "SELECT CAST(DATE '2021-03-31' - INTERVAL '1' MONTH AS STRING)", "2021-02-28", ""},
		{time.UTC, "SELECT CAST(INTERVAL '0-11' YEAR TO MONTH + DATE '2021-02-15' AS STRING)", "2022-01-15", ""},
		{time.UTC, "SELECT CAST(INTERVAL '1' YEAR + INTERVAL '2' MONTH AS STRING)", "INTERVAL '1-2' YEAR TO MONTH", ""},
		{time.UTC, "SELECT CAST(INTERVAL '1' YEAR - INTERVAL '14' MONTH AS STRING)", "INTERVAL '-0-2' YEAR TO MONTH", ""},
		{la, "SELECT CAST(TIMESTAMP '2021-02-14 02:30:00' + INTERVAL '1' MONTH AS STRING)", "2021-03-14 03:30:00", ""},
		{la, "SELECT CAST(TIMESTAMP '2021-01-31 23:00:00' + INTERVAL '1' MONTH AS STRING)", "2021-02-28 23:00:00", ""},
		{time.UTC, "SELECT date_part('YEAR', INTERVAL -'1-1' YEAR TO MONTH)", "-1", ""},
		{time.UTC, "SELECT date_part('MONTH', INTERVAL -'1-1' YEAR TO MONTH)", "-1", ""},
		{time.UTC, "SELECT date_part('MONTH', INTERVAL '2021-11' YEAR TO MONTH)", "11", ""},
	} {
		name, got := inZone(t, c.loc, c.query)
		if c.name != "" {
			if name != c.name {
				t.Errorf("%s: column %q, want %q", c.query, name, c.name)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s in %s: %s, want %s", c.query, c.loc, got, c.want)
		}
	}
}

// TestYearMonthIntervalRefusals: 32-bit months (178956970 years and 8
// months is 2^31), no literal mixing months with days, no cast to a
// number, no silent NULL.
func TestYearMonthIntervalRefusals(t *testing.T) {
	for query, want := range map[string]string{
		"SELECT INTERVAL '178956970-8' YEAR TO MONTH":  "INTERVAL_ARITHMETIC_OVERFLOW",
		"SELECT INTERVAL '178956970-7' YEAR TO MONTH":  "",
		"SELECT INTERVAL 1 year 2 days":                "mixing years or months with days or times",
		"SELECT INTERVAL '1-12' YEAR TO MONTH":         "invalid YEAR TO MONTH interval",
		"SELECT INTERVAL '1.5' YEAR":                   "not a whole number",
		"SELECT CAST(INTERVAL '1' YEAR AS DOUBLE)":     "casting interval year to month to double is not supported",
		"SELECT INTERVAL '1' YEAR * INTERVAL '1' YEAR": "operator * is not defined",
	} {
		_, _, err := typed(t, query)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", query, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", query, err, want)
		}
	}
	if _, err := sqlparser.Parse("SELECT INTERVAL '178956970-8' YEAR TO MONTH"); err == nil {
		t.Errorf("the parser took 2^31 months")
	}
}
