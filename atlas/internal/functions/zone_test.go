package functions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	sqlparser "github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// inZone runs a one-row query in session time zone loc and returns its
// first column's name and first value as text.
func inZone(t *testing.T, loc *time.Location, query string) (string, string) {
	t.Helper()
	st, err := sqlparser.Options{Zone: loc}.Parse(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	n, err := sql.PlanSelect(st.(*sqlparser.Select), func(*sqlparser.Name) (plan.Node, error) { return nil, nil })
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	schema, recs, err := exec.Collect(expr.WithZone(context.Background(), loc), n)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if len(recs) == 0 || recs[0].NumRows() == 0 {
		t.Fatalf("%s: no rows", query)
	}
	return schema.Field(0).Name, recs[0].Column(0).ValueStr(0)
}

func loadZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	return loc
}

// TestSessionTimeZoneLosAngeles checks casts, literals, fields, formats
// and truncation in America/Los_Angeles around its 2021 changes of
// offset, with values worked out by hand as Java resolves them: the
// clocks skipped 02:00-03:00 on 2021-03-14 (02:30 becomes 03:30 PDT) and
// repeated 01:00-02:00 on 2021-11-07 (01:30 reads as the earlier, PDT).
// Epoch seconds: 2021-11-07T08:30Z is 1636273800, 09:30Z 1636277400,
// 2021-03-14T08:00Z 1615708800, 10:30Z 1615717800.
func TestSessionTimeZoneLosAngeles(t *testing.T) {
	la := loadZone(t, "America/Los_Angeles")
	for _, c := range []struct{ query, want string }{
		{"SELECT CAST(TIMESTAMP '2021-03-14 02:30:00' AS STRING)", "2021-03-14 03:30:00"},
		{"SELECT CAST(TIMESTAMP '2021-03-14 02:30:00' AS BIGINT)", "1615717800"},
		{"SELECT CAST(CAST('2021-03-14 02:30:00' AS TIMESTAMP) AS BIGINT)", "1615717800"},
		{"SELECT CAST(CAST('2021-11-07 01:30:00' AS TIMESTAMP) AS BIGINT)", "1636273800"},
		{"SELECT CAST(CAST('2021-11-07 01:30:00-08:00' AS TIMESTAMP) AS BIGINT)", "1636277400"},
		{"SELECT CAST(CAST(1636277400 AS TIMESTAMP) AS STRING)", "2021-11-07 01:30:00"},
		{"SELECT CAST(CAST(1636273800 AS TIMESTAMP) AS STRING)", "2021-11-07 01:30:00"},
		{"SELECT CAST(TIMESTAMP '2021-01-01 07:00:00+00:00' AS DATE)", "2020-12-31"},
		{"SELECT CAST(CAST(DATE '2021-03-14' AS TIMESTAMP) AS BIGINT)", "1615708800"},
		{"SELECT hour(TIMESTAMP '2021-07-01 00:00:00Z')", "17"},
		{"SELECT date_part('HOUR', TIMESTAMP '2021-11-07 01:30:00')", "1"},
		{"SELECT day(TIMESTAMP '2021-01-01 07:00:00Z')", "31"},
		{"SELECT date_format(TIMESTAMP '2021-11-07 01:30:00', 'yyyy-MM-dd HH:mm XXX z')", "2021-11-07 01:30 -07:00 PDT"},
		{"SELECT date_format(CAST(1636277400 AS TIMESTAMP), 'HH:mm xx ZZZZ VV')", "01:30 -0800 GMT-08:00 America/Los_Angeles"},
		{"SELECT CAST(date_trunc('DAY', TIMESTAMP '2021-03-14 12:00:00') AS BIGINT)", "1615708800"},
		{"SELECT CAST(date_trunc('MONTH', TIMESTAMP '2021-03-14 12:00:00') AS STRING)", "2021-03-01 00:00:00"},
		{"SELECT CAST(to_timestamp('2021-03-14 02:30', 'yyyy-MM-dd HH:mm') AS STRING)", "2021-03-14 03:30:00"},
		{"SELECT CAST(to_timestamp('2021-03-14 02:30 UTC', 'yyyy-MM-dd HH:mm z') AS STRING)", "2021-03-13 18:30:00"},
		{"SELECT to_date(TIMESTAMP '2021-01-01 07:59:59Z')", "2020-12-31"},
	} {
		if _, got := inZone(t, la, c.query); got != c.want {
			t.Errorf("%s in Los Angeles: %s, want %s", c.query, got, c.want)
		}
	}
	// Spark names a timestamp literal by its text in the session time zone.
	if name, _ := inZone(t, la, "SELECT TIMESTAMP '2019-10-01 00:00:01'"); name != "TIMESTAMP '2019-10-01 00:00:01'" {
		t.Errorf("column name %q", name)
	}
}

// TestSessionTimeZoneHalfHour: truncation to the hour is in local time,
// which in Asia/Kolkata (+05:30) is not a whole number of UTC hours.
func TestSessionTimeZoneHalfHour(t *testing.T) {
	kolkata := loadZone(t, "Asia/Kolkata")
	if _, got := inZone(t, kolkata, "SELECT CAST(date_trunc('HOUR', TIMESTAMP '2021-01-01 10:45:00') AS STRING)"); got != "2021-01-01 10:00:00" {
		t.Errorf("date_trunc HOUR in Kolkata: %s", got)
	}
	if _, got := inZone(t, time.FixedZone("", -3*3600), "SELECT CAST(TIMESTAMP '2021-01-01 00:00:00Z' AS STRING)"); got != "2020-12-31 21:00:00" {
		t.Errorf("fixed -03:00: %s", got)
	}
}

// TestZoneFunctions checks current_timezone, from_utc_timestamp,
// to_utc_timestamp and convert_timezone against Spark's documented
// examples (session in America/Los_Angeles) and hand-worked DST cases:
// 10:30 UTC on 2021-03-14 is 03:30 PDT; 02:30 that day in Los Angeles
// does not exist and reads as 03:30 PDT (10:30 UTC). TIMESTAMP_NTZ keeps
// its wall clock: 12:00 PDT on 2021-07-01 is 19:00 UTC, 1625166000.
func TestZoneFunctions(t *testing.T) {
	la := loadZone(t, "America/Los_Angeles")
	for _, c := range []struct {
		loc               *time.Location
		query, want, name string
	}{
		{la, "SELECT current_timezone()", "America/Los_Angeles", ""},
		{la, "SELECT CAST(from_utc_timestamp('2016-08-31', 'Asia/Seoul') AS STRING)", "2016-08-31 09:00:00", ""},
		{la, "SELECT CAST(to_utc_timestamp('2016-08-31', 'Asia/Seoul') AS STRING)", "2016-08-30 15:00:00", ""},
		{time.UTC, "SELECT CAST(from_utc_timestamp(TIMESTAMP '2021-03-14 10:30:00', 'America/Los_Angeles') AS STRING)", "2021-03-14 03:30:00", ""},
		{time.UTC, "SELECT CAST(to_utc_timestamp(TIMESTAMP '2021-03-14 02:30:00', 'America/Los_Angeles') AS STRING)", "2021-03-14 10:30:00", ""},
		{la, "SELECT CAST(convert_timezone('Europe/Brussels', 'America/Los_Angeles', timestamp_ntz'2021-12-06 00:00:00') AS STRING)", "2021-12-05 15:00:00", ""},
		{la, "SELECT CAST(convert_timezone('Europe/Brussels', timestamp_ntz'2021-12-05 15:00:00') AS STRING)", "2021-12-06 00:00:00", ""},
		{la, "SELECT CAST(timestamp_ntz'2021-03-14 02:30:00' AS STRING)", "2021-03-14 02:30:00", ""},
		{la, "SELECT CAST(CAST(timestamp_ntz'2021-07-01 12:00:00' AS TIMESTAMP) AS BIGINT)", "1625166000", ""},
		{la, "SELECT CAST(CAST(TIMESTAMP '2021-07-01 19:00:00Z' AS TIMESTAMP_NTZ) AS STRING)", "2021-07-01 12:00:00", ""},
		{la, "SELECT convert_timezone('Europe/Brussels', timestamp_ntz'2021-12-05 15:00:00')", "", "convert_timezone(current_timezone(), Europe/Brussels, TIMESTAMP_NTZ '2021-12-05 15:00:00')"},
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

// TestZoneFunctionsRefuseUnknownZones: Spark's INVALID_TIMEZONE.
func TestZoneFunctionsRefuseUnknownZones(t *testing.T) {
	_, _, err := typed(t, "SELECT from_utc_timestamp(TIMESTAMP '2021-01-01 00:00:00', 'Mars/Olympus_Mons')")
	if err == nil || !strings.Contains(err.Error(), "INVALID_TIMEZONE") {
		t.Fatalf("unknown zone: %v, want INVALID_TIMEZONE", err)
	}
}
