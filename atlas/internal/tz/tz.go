// Package tz resolves wall-clock times in a time zone as Java's java.time
// (and so Spark) does, where Go's time.Date leaves the choice open.
package tz

import "time"

// LocalToInstant is the instant of a wall-clock time in loc, resolved as
// Java's ZonedDateTime.of (and so Spark) resolves it: a time in a gap
// (the hour skipped when clocks go forward) moves later by the length of
// the gap (02:30 on 2021-03-14 in America/Los_Angeles is 03:30 PDT), and
// a time that occurs twice (the hour repeated when clocks go back) takes
// the earlier offset (01:30 on 2021-11-07 there is 01:30 PDT, -07:00).
// Go's time.Date leaves both choices unspecified.
func LocalToInstant(wall time.Time, loc *time.Location) time.Time {
	y, mo, d := wall.Date()
	h, mi, s := wall.Clock()
	naive := time.Date(y, mo, d, h, mi, s, wall.Nanosecond(), time.UTC)
	if loc == time.UTC {
		return naive
	}
	offsetAt := func(t time.Time) int { _, o := t.In(loc).Zone(); return o }
	before := offsetAt(naive.Add(-36 * time.Hour))
	after := offsetAt(naive.Add(36 * time.Hour))
	early := naive.Add(-time.Duration(before) * time.Second)
	if offsetAt(early) == before {
		return early.In(loc)
	}
	late := naive.Add(-time.Duration(after) * time.Second)
	if offsetAt(late) == after {
		return late.In(loc)
	}
	// A gap: the offset before it, which lands past the gap.
	return early.In(loc)
}
