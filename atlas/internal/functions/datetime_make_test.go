package functions_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	sqlparser "github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// cell runs SELECT <e> and returns the result column's name, its Spark
// type name and its one value as text: timestamps as
// yyyy-MM-dd HH:mm:ss[.ffffff] in UTC, day-time intervals as
// microseconds, calendar intervals as months, days and nanoseconds,
// NULL for null.
func cell(t *testing.T, e string) (name, typ, val string, err error) {
	t.Helper()
	st, err := sqlparser.Parse("SELECT " + e)
	if err != nil {
		return "", "", "", err
	}
	n, err := sql.PlanSelect(st.(*sqlparser.Select), func(*sqlparser.Name) (plan.Node, error) { return nil, nil })
	if err != nil {
		return "", "", "", err
	}
	schema, recs, err := exec.Collect(context.Background(), n)
	if err != nil {
		return "", "", "", err
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	f := schema.Field(0)
	col := recs[0].Column(0)
	switch c := col.(type) {
	case *array.Null:
		val = "NULL"
	case *array.Timestamp:
		val = time.UnixMicro(int64(c.Value(0))).UTC().Format("2006-01-02 15:04:05.999999")
	case *array.Duration:
		val = strconv.FormatInt(int64(c.Value(0)), 10)
	case *array.MonthDayNanoInterval:
		v := c.Value(0)
		val = fmt.Sprintf("%d months %d days %d ns", v.Months, v.Days, v.Nanoseconds)
	case *array.Float64:
		val = strconv.FormatFloat(c.Value(0), 'g', -1, 64)
	default:
		val = col.ValueStr(0)
	}
	if col.IsNull(0) {
		val = "NULL"
	}
	return f.Name, types.Name(f.Type), val, nil
}

// TestMakeAndEpochFunctions checks the datetime constructors and epoch
// conversions against values computed by hand from Spark's definitions
// (session time zone UTC): ANSI errors with Spark's error classes, NULL
// from the try_ forms, overflow, and NULL arguments.
func TestMakeAndEpochFunctions(t *testing.T) {
	for _, c := range []struct{ q, typ, val string }{
		{"make_timestamp(2014, 12, 28, 6, 30, 45.887)", "timestamp", "2014-12-28 06:30:45.887"},
		{"make_timestamp(2014, 12, 28, 6, 30, 45.887, 'CET')", "timestamp", "2014-12-28 05:30:45.887"},
		{"make_timestamp(2024, 7, 1, 12, 0, 0, '+05:30')", "timestamp", "2024-07-01 06:30:00"},
		{"make_timestamp(2019, 6, 30, 23, 59, 60)", "timestamp", "2019-07-01 00:00:00"},
		{"make_timestamp(2019, 12, 31, 23, 59, 60)", "timestamp", "2020-01-01 00:00:00"},
		{"make_timestamp(2024, 1, 1, 0, 0, 1.0000005)", "timestamp", "2024-01-01 00:00:01.000001"},
		{"make_timestamp(2024, 2, 29, 0, 0, 0)", "timestamp", "2024-02-29 00:00:00"},
		// 02:30 does not exist in Los Angeles that day: 02:30 PST, 10:30 UTC.
		{"make_timestamp(2024, 3, 10, 2, 30, 0, 'America/Los_Angeles')", "timestamp", "2024-03-10 10:30:00"},
		// 01:30 happens twice: the earlier offset (PDT, -7) wins.
		{"make_timestamp(2024, 11, 3, 1, 30, 0, 'America/Los_Angeles')", "timestamp", "2024-11-03 08:30:00"},
		{"make_timestamp(null, 7, 22, 15, 30, 0)", "timestamp", "NULL"},
		{"make_timestamp(DATE'2014-12-28')", "timestamp", "2014-12-28 00:00:00"},
		{"make_timestamp_ltz(2014, 12, 28, 6, 30, 45.887, 'CET')", "timestamp", "2014-12-28 05:30:45.887"},
		{"make_timestamp_ntz(2014, 12, 28, 6, 30, 45.887)", "timestamp_ntz", "2014-12-28 06:30:45.887"},
		{"try_make_timestamp(2024, 13, 22, 15, 30, 0)", "timestamp", "NULL"},
		{"try_make_timestamp(2024, 2, 30, 0, 0, 0)", "timestamp", "NULL"},
		{"try_make_timestamp(2019, 6, 30, 23, 59, 60.5)", "timestamp", "NULL"},
		{"try_make_timestamp_ntz(2019, 6, 30, 23, 59, 60)", "timestamp_ntz", "2019-07-01 00:00:00"},
		{"try_make_timestamp_ltz(2014, 12, 28, 6, 30, 45.887)", "timestamp", "2014-12-28 06:30:45.887"},

		// 1 day 12:30:01.001001 in microseconds.
		{"make_dt_interval(1, 12, 30, 01.001001)", "interval day to second", "131401001001"},
		{"make_dt_interval(2)", "interval day to second", "172800000000"},
		{"make_dt_interval()", "interval day to second", "0"},
		{"make_dt_interval(-1, 0, 0, 0.5)", "interval day to second", "-86399500000"},
		{"make_dt_interval(106751991)", "interval day to second", "9223372022400000000"},
		{"make_dt_interval(100, null, 3)", "interval day to second", "NULL"},

		{"timestamp_seconds(1230219000)", "timestamp", "2008-12-25 15:30:00"},
		{"timestamp_seconds(1230219000.123)", "timestamp", "2008-12-25 15:30:00.123"},
		{"timestamp_seconds(-1.5D)", "timestamp", "1969-12-31 23:59:58.5"},
		{"timestamp_seconds(CAST('NaN' AS DOUBLE))", "timestamp", "NULL"},
		{"unix_micros(timestamp_seconds(1e30D))", "long", "9223372036854775807"},
		{"timestamp_millis(1230219000123)", "timestamp", "2008-12-25 15:30:00.123"},
		{"timestamp_micros(1230219000123123)", "timestamp", "2008-12-25 15:30:00.123123"},
		{"timestamp_micros(NULL)", "timestamp", "NULL"},
		{"unix_seconds(TIMESTAMP('1970-01-01 00:00:01Z'))", "long", "1"},
		{"unix_seconds(TIMESTAMP('1969-12-31 23:59:59.5'))", "long", "-1"},
		{"unix_millis(TIMESTAMP('1969-12-31 23:59:59.9995'))", "long", "-1"},
		{"unix_micros(TIMESTAMP('1970-01-01 00:00:01Z'))", "long", "1000000"},
		{"unix_date(DATE'1970-01-02')", "integer", "1"},
		{"unix_date(DATE'1969-12-31')", "integer", "-1"},
		{"date_from_unix_date(1)", "date", "1970-01-02"},
		{"date_from_unix_date(-1)", "date", "1969-12-31"},
		{"date_from_unix_date(NULL)", "date", "NULL"},

		{"unix_timestamp('2016-04-08', 'yyyy-MM-dd')", "long", "1460073600"},
		{"to_unix_timestamp('2016-04-08 12:00:00')", "long", "1460116800"},
		{"unix_timestamp('2016-04-08 00:00:00+0100', 'yyyy-MM-dd HH:mm:ssZ')", "long", "1460070000"},
		{"unix_timestamp(DATE'1970-01-02')", "long", "86400"},
		{"unix_timestamp(TIMESTAMP('1969-12-31 23:59:59.5'))", "long", "-1"},
		{"unix_timestamp(NULL)", "long", "NULL"},
		{"from_unixtime(0)", "string", "1970-01-01 00:00:00"},
		{"from_unixtime(86400, 'yyyy/MM/dd')", "string", "1970/01/02"},
		{"from_unixtime(NULL)", "string", "NULL"},

		{"dayname(DATE'2008-02-20')", "string", "Wed"},
		{"monthname('2008-02-20')", "string", "Feb"},
		{"dayname(NULL)", "string", "NULL"},
		{"next_day('2015-01-14', 'TU')", "date", "2015-01-20"},
		{"next_day('2015-01-13', 'tuesday')", "date", "2015-01-20"},
		{"next_day(NULL, 'TU')", "date", "NULL"},
		{"months_between('1997-02-28 10:30:00', '1996-10-30')", "double", "3.94959677"},
		{"months_between('1997-02-28 10:30:00', '1996-10-30', false)", "double", "3.9495967741935485"},
		{"months_between('2021-03-31', '2021-02-28')", "double", "1"},
		{"months_between('2021-01-15', '2021-03-15')", "double", "-2"},
		{"months_between('2021-01-01', '2021-01-02')", "double", "-0.03225806"},

		{"current_date() = CAST(current_timestamp() AS DATE)", "boolean", "true"},
		{"current_timezone()", "string", "UTC"},
		{"to_timestamp_ntz('2016-12-31 00:12:00')", "timestamp_ntz", "2016-12-31 00:12:00"},
		{"to_timestamp_ltz('2016-12-31', 'yyyy-MM-dd')", "timestamp", "2016-12-31 00:00:00"},
		{"try_to_date('foo')", "date", "NULL"},
		{"try_to_date('2016-02-30')", "date", "NULL"},
		{"try_to_date('2016-12-31', 'yyyy-MM-dd')", "date", "2016-12-31"},
		{"timestamp('1970-01-01 00:00:01Z')", "timestamp", "1970-01-01 00:00:01"},
		{"date('2008-02-20')", "date", "2008-02-20"},
	} {
		_, typ, val, err := cell(t, c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if typ != c.typ || val != c.val {
			t.Errorf("%s = %s %s, want %s %s", c.q, typ, val, c.typ, c.val)
		}
	}
}

// TestMakeAndEpochErrors checks the errors Spark raises under ANSI, by
// their error class and the part of the message that names the cause.
func TestMakeAndEpochErrors(t *testing.T) {
	for q, want := range map[string]string{
		"make_timestamp(2024, 13, 22, 15, 30, 0)":                "[DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION] Invalid value for MonthOfYear (valid values 1 - 12): 13",
		"make_timestamp(2023, 2, 29, 0, 0, 0)":                   "[DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION] Invalid date 'February 29' as '2023' is not a leap year",
		"make_timestamp(2024, 4, 31, 0, 0, 0)":                   "Invalid date 'APRIL 31'",
		"make_timestamp(2024, 1, 0, 0, 0, 0)":                    "Invalid value for DayOfMonth (valid values 1 - 28/31): 0",
		"make_timestamp(2024, 1, 1, 24, 0, 0)":                   "Invalid value for HourOfDay (valid values 0 - 23): 24",
		"make_timestamp_ntz(2024, 1, 1, 0, 60, 0)":               "Invalid value for MinuteOfHour (valid values 0 - 59): 60",
		"make_timestamp(2019, 6, 30, 23, 59, -1)":                "Invalid value for SecondOfMinute (valid values 0 - 59): -1",
		"make_timestamp(2019, 6, 30, 23, 59, 60.5)":              "[INVALID_FRACTION_OF_SECOND] Valid range for seconds is [0, 60] (inclusive), but the provided value is 60.500000",
		"make_timestamp(2024, 1, 1, 0, 0, 0, 'Nowhere/City')":    "[INVALID_TIMEZONE] The timezone: Nowhere/City is invalid",
		"make_timestamp(3000000000, 1, 1, 0, 0, 0)":              "[CAST_OVERFLOW] The value 3000000000L of the type \"BIGINT\" cannot be cast to \"INT\"",
		"make_timestamp(2024, 1, 1, 0, 0, 10000000000)":          "[NUMERIC_VALUE_OUT_OF_RANGE",
		"make_timestamp(1, 2, 3, 4)":                             "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `make_timestamp` requires [1, 3] or [6, 7] parameters but the actual number is 4",
		"make_timestamp_ntz(2014, 12, 28, 6, 30, 45.887, 'CET')": "[WRONG_NUM_ARGS.WITHOUT_SUGGESTION]",
		"make_timestamp(DATE'2014-12-28', '06:30')":              "Atlas has no TIME type yet",
		"make_dt_interval(106751992)":                            "[ARITHMETIC_OVERFLOW] long overflow",
		"make_dt_interval(0, 0, 0, 1000000000000)":               "[NUMERIC_VALUE_OUT_OF_RANGE",
		"timestamp_seconds(9223372036855)":                       "[ARITHMETIC_OVERFLOW] long overflow",
		"timestamp_seconds(1.0000001)":                           "Rounding necessary",
		"timestamp_millis(9223372036854776)":                     "[ARITHMETIC_OVERFLOW] long overflow",
		"timestamp_millis('1')":                                  "[DATATYPE_MISMATCH",
		"unix_seconds('1970-01-01')":                             "[DATATYPE_MISMATCH",
		"unix_timestamp('foo', 'yyyy-MM-dd')":                    "[CANNOT_PARSE_TIMESTAMP] Text 'foo' could not be parsed",
		"from_unixtime(9223372036855)":                           "[ARITHMETIC_OVERFLOW] long overflow",
		"next_day('2015-01-14', 'xx')":                           "[ILLEGAL_DAY_OF_WEEK] Illegal input for day of week: xx.",
		"to_timestamp_ntz('foo')":                                "[CAST_INVALID_INPUT]",
		"date('2016-02-30')":                                     "[CAST_INVALID_INPUT]",
	} {
		_, _, val, err := cell(t, q)
		if err == nil {
			t.Errorf("%s = %s, want the error %s", q, val, want)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", q, err, want)
		}
	}
}

// TestMakeAndEpochColumnNames checks Spark's result column names, which
// fill in defaults and sometimes differ from the call (corpus schemas).
func TestMakeAndEpochColumnNames(t *testing.T) {
	for q, want := range map[string]string{
		"make_dt_interval(2)":                                        "make_dt_interval(2, 0, 0, 0.000000)",
		"make_dt_interval(1, 12, 30, 01.001001)":                     "make_dt_interval(1, 12, 30, 1.001001)",
		"try_make_timestamp(2014, 12, 28, 6, 30, 45.887, 'CET')":     "try_make_timestamp(2014, 12, 28, 6, 30, 45.887)",
		"try_make_timestamp_ltz(2014, 12, 28, 6, 30, 45.887, 'CET')": "try_make_timestamp_ltz(2014, 12, 28, 6, 30, 45.887, CET)",
		"make_timestamp(DATE'2014-12-28')":                           "make_timestamp(DATE '2014-12-28')",
		"unix_timestamp()":                                           "unix_timestamp(current_timestamp(), yyyy-MM-dd HH:mm:ss)",
		"to_unix_timestamp('2016-04-08 00:00:00')":                   "to_unix_timestamp(2016-04-08 00:00:00, yyyy-MM-dd HH:mm:ss)",
		"from_unixtime(0)":                                           "from_unixtime(0, yyyy-MM-dd HH:mm:ss)",
		"months_between('1997-02-28 10:30:00', '1996-10-30')":        "months_between(1997-02-28 10:30:00, 1996-10-30, true)",
		"curdate()":                   "current_date()",
		"current_date":                "current_date()",
		"localtimestamp()":            "localtimestamp()",
		"dayname(DATE('2008-02-20'))": "dayname(2008-02-20)",
		"unix_micros(TIMESTAMP('1970-01-01 00:00:01Z'))": "unix_micros(1970-01-01 00:00:01Z)",
		"to_timestamp_ntz('2016-12-31', 'yyyy-MM-dd')":   "to_timestamp_ntz(2016-12-31, yyyy-MM-dd)",
		"to_timestamp_ltz('2016-12-31 00:12:00')":        "to_timestamp_ltz(2016-12-31 00:12:00)",
	} {
		name, _, _, err := cell(t, q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if name != want {
			t.Errorf("%s is named %q, want %q", q, name, want)
		}
	}
	if _, typ, _, err := cell(t, "localtimestamp()"); err != nil || typ != "timestamp_ntz" {
		t.Errorf("localtimestamp() is %s (%v), want timestamp_ntz", typ, err)
	}
}
