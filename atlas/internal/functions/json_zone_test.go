package functions_test

import (
	"testing"
	"time"
)

// TestJSONAndCSVSessionZone: to_json and to_csv write a timestamp in the
// session time zone with its offset (Spark's XXX), and from_csv and
// from_json read one without a zone as a wall clock there. In
// America/Los_Angeles, 2015-08-26 08:02:03 UTC is 01:02:03-07:00 (PDT).
func TestJSONAndCSVSessionZone(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	instant := `CAST('2015-08-26 08:02:03Z' AS TIMESTAMP)`
	for e, want := range map[string]string{
		`to_json(named_struct('t', ` + instant + `))`:                                           `{"t":"2015-08-26T01:02:03.000-07:00"}`,
		`to_csv(named_struct('t', ` + instant + `))`:                                            "2015-08-26T01:02:03.000-07:00",
		`to_json(from_csv('2015-08-26 01:02:03', 't TIMESTAMP'))`:                               `{"t":"2015-08-26T01:02:03.000-07:00"}`,
		`to_json(from_json('{"t":"2015-08-26 01:02:03","a":[]}', 't TIMESTAMP, a ARRAY<INT>'))`: `{"t":"2015-08-26T01:02:03.000-07:00","a":[]}`,
	} {
		if _, got := inZone(t, la, "SELECT "+e); got != want {
			t.Errorf("%s = %q, want %q", e, got, want)
		}
	}
}
