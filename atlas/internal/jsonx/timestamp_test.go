package jsonx

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// fastTimestamp is the fast path without a remembered date: every call
// parses the date itself.
func fastTimestamp(s []byte) (micros int64, ok, handled bool) {
	var dc dateCache
	return dc.timestamp(s)
}

func TestTimestampGrammar(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, us int) int64 {
		return time.Date(y, mo, d, h, mi, s, us*1000, time.UTC).UnixMicro()
	}
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"2026-11-30T10:15:30Z", utc(2026, 11, 30, 10, 15, 30, 0), true},
		{"  2026-11-30T10:15:30Z ", utc(2026, 11, 30, 10, 15, 30, 0), true},
		{"2026", utc(2026, 1, 1, 0, 0, 0, 0), true},
		{"2026-7", utc(2026, 7, 1, 0, 0, 0, 0), true},
		{"2026-11-30T10", utc(2026, 11, 30, 10, 0, 0, 0), true},
		{"2026-11-30T10:15:30.", utc(2026, 11, 30, 10, 15, 30, 0), true},
		{"2026-11-30T10:15:30.5+01", utc(2026, 11, 30, 9, 15, 30, 500000), true},
		{"2026-11-30T10:15:30+1:00", utc(2026, 11, 30, 9, 15, 30, 0), true},
		{"2026-11-30T10:15:30-01:3", utc(2026, 11, 30, 11, 18, 30, 0), true},
		{"2026-11-30T10:15:30+013015", utc(2026, 11, 30, 8, 45, 15, 0), true},
		{"2026-11-30T10:15:30 UTC+01:00", utc(2026, 11, 30, 9, 15, 30, 0), true},
		{"2026-11-30T10:15:30UT", utc(2026, 11, 30, 10, 15, 30, 0), true},
		{"2026-11-30T10:15:30 GMT", utc(2026, 11, 30, 10, 15, 30, 0), true},
		{"2026-11-30T10:15:30HST", utc(2026, 11, 30, 20, 15, 30, 0), true},
		{"+12026-01-01 00:00:00", utc(12026, 1, 1, 0, 0, 0, 0), true},
		{"-0001-01-01T00:00:00Z", time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro(), true},
		{"2024-02-29 23:59:59.999999", utc(2024, 2, 29, 23, 59, 59, 999999), true},
		{"2023-02-29 00:00:00", 0, false},
		{"2026-11-30T10:15:60Z", 0, false},
		{"2026-11-30T10:60:00Z", 0, false},
		{"2026-11-30T10:15:30+18:01", 0, false},
		{"2026-11-30T10:15:30 Mars/Base", 0, false},
		{"2026-11-30T10:15:30z", 0, false},
		{"2026-11-30T", 0, false},
		{"26-11-30", 0, false},
		{"2026-011-30", 0, false},
		{"2026/11/30", 0, false},
		{"10:15:30", 0, false},
		{"T10:15:30", 0, false},
		{"", 0, false},
		{"9999999-01-01", 0, false},
	}
	zc := zoneCache{}
	for _, tc := range cases {
		got, ok, handled := fastTimestamp([]byte(tc.in))
		if !handled {
			got, ok = zc.timestamp([]byte(tc.in))
		}
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("timestamp %q = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTimestampRegionZone needs the system time zone database.
func TestTimestampRegionZone(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	zc := zoneCache{}
	for _, in := range []string{"2026-07-01T12:00:00 Europe/Paris", "2026-07-01T12:00:00ECT"} {
		got, ok := zc.timestamp([]byte(in))
		want := time.Date(2026, 7, 1, 12, 0, 0, 0, paris).UnixMicro()
		if !ok || got != want {
			t.Errorf("timestamp %q = %d, %v; want %d", in, got, ok, want)
		}
	}
}

// TestFastTimestampAgreesWithGeneral checks that every text the fast path
// takes parses the same way through the general parser and through Go's
// time.Parse.
func TestFastTimestampAgreesWithGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	zc := zoneCache{}
	var dates dateCache
	prev := ""
	zones := []string{"", "Z", "+01:00", "-0530", "+14", "-18:00", "+18:30", "+00:60"}
	for i := 0; i < 20000; i++ {
		y, mo, d := 1+r.IntN(9998), 1+r.IntN(13), 1+r.IntN(32)
		h, mi, s := r.IntN(25), r.IntN(61), r.IntN(61)
		frac := []string{"", ".", ".1", ".123", ".123456", ".123456789"}[r.IntN(6)]
		sep := []string{"T", " "}[r.IntN(2)]
		zone := zones[r.IntN(len(zones))]
		text := fmt.Sprintf("%04d-%02d-%02d%s%02d:%02d:%02d%s%s", y, mo, d, sep, h, mi, s, frac, zone)
		fast, fastOK, handled := fastTimestamp([]byte(text))
		if !handled {
			t.Fatalf("fast path did not take %q", text)
		}
		slow, slowOK := zc.timestamp([]byte(text))
		if fastOK != slowOK || fast != slow {
			t.Fatalf("%q: fast = %d, %v; general = %d, %v", text, fast, fastOK, slow, slowOK)
		}
		// The date cache a Decoder keeps: one lasting across texts (a
		// miss, then a hit on the same date, with another time of day
		// when the first one was valid), the same answers.
		for _, again := range []string{text, text[:11] + "00:00:00"} {
			want, wantOK, _ := fastTimestamp([]byte(again))
			got, gotOK, handled := dates.timestamp([]byte(again))
			if !handled || got != want || gotOK != wantOK {
				t.Fatalf("%q after %q with the date cache: %d, %v, %v; without: %d, %v", again, prev, got, gotOK, handled, want, wantOK)
			}
			prev = again
		}
		// time.Parse agrees where its grammar overlaps (it has no ±HH and
		// allows offsets beyond 18 hours).
		layout := "2006-01-02" + sep + "15:04:05"
		layout += map[string]string{"": "", ".": ".", ".1": ".0", ".123": ".000", ".123456": ".000000", ".123456789": ".000000000"}[frac]
		layout += map[string]string{"": "", "Z": "Z07:00", "+01:00": "Z07:00", "-0530": "-0700", "+14": "-07", "-18:00": "Z07:00", "+18:30": "Z07:00", "+00:60": "Z07:00"}[zone]
		if frac == "." || zone == "+18:30" || zone == "+00:60" {
			continue
		}
		ref, err := time.Parse(layout, text)
		if (err == nil) != fastOK {
			t.Fatalf("%q: fast ok = %v, time.Parse error = %v", text, fastOK, err)
		}
		if err == nil && ref.Truncate(time.Microsecond).UnixMicro() != fast {
			t.Fatalf("%q: fast = %d, time.Parse = %d", text, fast, ref.UnixMicro())
		}
	}
}

func TestDateGrammar(t *testing.T) {
	day := func(y int, mo time.Month, d int) int32 {
		return int32(time.Date(y, mo, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	}
	cases := []struct {
		in   string
		want int32
		ok   bool
	}{
		{"2026-11-30", day(2026, 11, 30), true},
		{" 2026-11-30 ", day(2026, 11, 30), true},
		{"2026-11-30T23:59:59+05:00", day(2026, 11, 30), true},
		{"2026-11-30 anything", day(2026, 11, 30), true},
		{"2026-1-5", day(2026, 1, 5), true},
		{"2026", day(2026, 1, 1), true},
		{"1969-12-31", -1, true},
		{"0", 0, true},
		{"-3", -3, true},
		{"2026-02-29", 0, false},
		{"2026-11-30x", 0, false},
		{"2026-11 ", day(2026, 11, 1), true},
		{"2026-11x", 0, false},
		{"abc", 0, false},
		{"", 0, false},
	}
	for _, tc := range cases {
		got, ok := parseDate([]byte(tc.in))
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("date %q = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
