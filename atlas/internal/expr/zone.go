package expr

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/tz"
)

// ConfSessionTimeZone is Spark's spark.sql.session.timeZone: the zone in
// which timestamps (TIMESTAMP, Spark's TIMESTAMP_LTZ: an instant) are read
// from and written as text, split into fields (hour, date, ...) and
// truncated. Atlas reads it through Go's time zone database.
const ConfSessionTimeZone = "spark.sql.session.timeZone"

type zoneKey struct{}

// WithZone returns ctx carrying the session time zone for the queries run
// under it.
func WithZone(ctx context.Context, loc *time.Location) context.Context {
	return context.WithValue(ctx, zoneKey{}, loc)
}

// ZoneFromContext is the session time zone WithZone put in ctx; UTC when
// none was.
func ZoneFromContext(ctx context.Context) *time.Location {
	if ctx != nil {
		if loc, ok := ctx.Value(zoneKey{}).(*time.Location); ok && loc != nil {
			return loc
		}
	}
	return time.UTC
}

// Zone is the session time zone of the evaluation (UTC for a Ctx without
// one).
func (c *Ctx) Zone() *time.Location {
	if c == nil {
		return time.UTC
	}
	return ZoneFromContext(c.Context)
}

// ParseZoneID reads a zone as Spark's DateTimeUtils.getZoneId (Java's
// ZoneId.of) does: a region of the time zone database (America/Los_Angeles),
// Z, UTC, GMT or UT, an offset +h, +hh, +hh:mm, +hhmm, +hh:mm:ss, or
// UTC/GMT/UT followed by an offset. It fails with Spark's
// INVALID_CONF_VALUE.TIME_ZONE wording for anything else.
func ParseZoneID(z string) (*time.Location, error) {
	s := strings.TrimSpace(z)
	if s != "" && s != "Local" {
		if loc, ok := parseZone(s); ok {
			if _, off := time.Date(2000, 1, 1, 0, 0, 0, 0, loc).Zone(); off <= 18*3600 && off >= -18*3600 {
				return loc, nil // Java's offsets stop at ±18:00
			}
		}
	}
	return nil, fmt.Errorf("[INVALID_CONF_VALUE.TIME_ZONE] The value '%s' in the config \"%s\" is invalid. Cannot resolve the given timezone. SQLSTATE: 22022", z, ConfSessionTimeZone)
}

// LocalToInstant is the instant of a wall-clock time in loc, resolved as
// Java and Spark resolve it (see tz.LocalToInstant).
func LocalToInstant(wall time.Time, loc *time.Location) time.Time {
	return tz.LocalToInstant(wall, loc)
}

// CivilDate is the date of the instant t in loc, as a UTC midnight (the
// way Atlas holds dates).
func CivilDate(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// isUTC reports a zone that is UTC by name.
func isUTC(loc *time.Location) bool { return loc == time.UTC || loc.String() == "UTC" }

// hasTimestamp reports whether t is or holds a timestamp.
func hasTimestamp(t arrow.DataType) bool {
	switch x := t.(type) {
	case *arrow.TimestampType:
		return true
	case *arrow.StructType:
		for _, f := range x.Fields() {
			if hasTimestamp(f.Type) {
				return true
			}
		}
	case arrow.ListLikeType:
		return hasTimestamp(x.Elem())
	}
	return false
}
