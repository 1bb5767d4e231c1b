package expr

import (
	"strings"
	"time"
)

// ZoneID reads a time zone as Spark's DateTimeUtils.getZoneId does: a
// region (Europe/Paris, CET), Z, UTC, GMT or UT, an offset (+hh, +hh:mm,
// +hhmm) or UTC/GMT/UT followed by one; ok is false for anything else.
func ZoneID(s string) (*time.Location, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "local") {
		return nil, false
	}
	return parseZone(s)
}
