package tz

import (
	"testing"
	"time"
)

// TestLocalToInstantDST checks the wall-clock times around America/Los_Angeles's
// changes of 2021 against Java's ZonedDateTime.of, worked out by hand: the
// clocks went from 02:00 PST (-08:00) to 03:00 PDT (-07:00) on 2021-03-14
// (10:00 UTC) and from 02:00 PDT back to 01:00 PST on 2021-11-07 (09:00 UTC).
func TestLocalToInstantDST(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	wall := func(s string) time.Time {
		w, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	for _, c := range []struct{ wall, utc, why string }{
		{"2021-03-14 01:59:59", "2021-03-14T09:59:59Z", "last second of PST"},
		{"2021-03-14 02:00:00", "2021-03-14T10:00:00Z", "start of the gap: 03:00 PDT"},
		{"2021-03-14 02:30:00", "2021-03-14T10:30:00Z", "in the gap: moves an hour later, 03:30 PDT"},
		{"2021-03-14 03:00:00", "2021-03-14T10:00:00Z", "first time of PDT"},
		{"2021-03-14 05:00:00", "2021-03-14T12:00:00Z", "after the change, same day"},
		{"2021-11-07 00:59:59", "2021-11-07T07:59:59Z", "before the repeated hour"},
		{"2021-11-07 01:30:00", "2021-11-07T08:30:00Z", "repeated hour: the earlier offset, PDT"},
		{"2021-11-07 02:00:00", "2021-11-07T10:00:00Z", "after the repeated hour: PST"},
		{"2021-11-07 05:00:00", "2021-11-07T13:00:00Z", "after the change, same day"},
		{"2021-07-01 12:00:00", "2021-07-01T19:00:00Z", "summer"},
		{"2021-01-01 00:00:00", "2021-01-01T08:00:00Z", "winter"},
	} {
		got := LocalToInstant(wall(c.wall), la)
		if got.UTC().Format(time.RFC3339) != c.utc {
			t.Errorf("%s in Los Angeles (%s): %s, want %s", c.wall, c.why, got.UTC().Format(time.RFC3339), c.utc)
		}
		if got.Location() != la {
			t.Errorf("%s: result in %s, want the zone", c.wall, got.Location())
		}
	}
	if got := LocalToInstant(wall("2021-03-14 02:30:00"), time.UTC); !got.Equal(wall("2021-03-14 02:30:00")) {
		t.Errorf("UTC: %s", got)
	}
	plus530 := time.FixedZone("", 5*3600+1800)
	if got := LocalToInstant(wall("2021-03-14 02:30:00"), plus530).UTC().Format(time.RFC3339); got != "2021-03-13T21:00:00Z" {
		t.Errorf("+05:30: %s", got)
	}
}
