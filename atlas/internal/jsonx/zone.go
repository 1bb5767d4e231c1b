package jsonx

import (
	"time"
)

// parseOffset parses a zone offset as Spark's getZoneId and Java's
// ZoneOffset.of accept it: a sign then h, hh, hhmm, hhmmss, h:mm, hh:mm,
// hh:m or hh:mm:ss, at most 18 hours. It returns seconds east of UTC.
func parseOffset(b []byte) (int64, bool) {
	if len(b) < 2 || (b[0] != '+' && b[0] != '-') {
		return 0, false
	}
	var parts [3]int64
	var widths [3]int
	n := 0
	for _, c := range b[1:] {
		switch {
		case c == ':':
			n++
			if n > 2 {
				return 0, false
			}
		case isDigit(c):
			parts[n] = parts[n]*10 + int64(c-'0')
			widths[n]++
			if widths[n] > 6 {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	var h, m, s int64
	switch n {
	case 0: // h, hh, hhmm, hhmmss
		v := parts[0]
		switch widths[0] {
		case 1, 2:
			h = v
		case 4:
			h, m = v/100, v%100
		case 6:
			h, m, s = v/10000, v/100%100, v%100
		default:
			return 0, false
		}
	case 1: // h:mm, hh:mm, hh:m (normalised by Spark)
		if widths[0] < 1 || widths[0] > 2 || widths[1] < 1 || widths[1] > 2 || (widths[0] == 1 && widths[1] == 1) {
			return 0, false
		}
		h, m = parts[0], parts[1]
	case 2: // hh:mm:ss or h:mm:ss
		if widths[0] < 1 || widths[0] > 2 || widths[1] != 2 || widths[2] != 2 {
			return 0, false
		}
		h, m, s = parts[0], parts[1], parts[2]
	}
	if m > 59 || s > 59 {
		return 0, false
	}
	off := h*3600 + m*60 + s
	if off > 18*3600 {
		return 0, false
	}
	if b[0] == '-' {
		off = -off
	}
	return off, true
}

// shortZone resolves the ids of Java's ZoneId.SHORT_IDS, which Spark passes
// to ZoneId.of: a fixed offset, or the region the id stands for.
func shortZone(z string) (offset int64, region string, ok bool) {
	switch z {
	case "EST":
		return -5 * 3600, "", true
	case "MST":
		return -7 * 3600, "", true
	case "HST":
		return -10 * 3600, "", true
	case "ACT":
		return 0, "Australia/Darwin", true
	case "AET":
		return 0, "Australia/Sydney", true
	case "AGT":
		return 0, "America/Argentina/Buenos_Aires", true
	case "ART":
		return 0, "Africa/Cairo", true
	case "AST":
		return 0, "America/Anchorage", true
	case "BET":
		return 0, "America/Sao_Paulo", true
	case "BST":
		return 0, "Asia/Dhaka", true
	case "CAT":
		return 0, "Africa/Harare", true
	case "CNT":
		return 0, "America/St_Johns", true
	case "CST":
		return 0, "America/Chicago", true
	case "CTT":
		return 0, "Asia/Shanghai", true
	case "EAT":
		return 0, "Africa/Addis_Ababa", true
	case "ECT":
		return 0, "Europe/Paris", true
	case "IET":
		return 0, "America/Indiana/Indianapolis", true
	case "IST":
		return 0, "Asia/Kolkata", true
	case "JST":
		return 0, "Asia/Tokyo", true
	case "MIT":
		return 0, "Pacific/Apia", true
	case "NET":
		return 0, "Asia/Yerevan", true
	case "NST":
		return 0, "Pacific/Auckland", true
	case "PLT":
		return 0, "Asia/Karachi", true
	case "PNT":
		return 0, "America/Phoenix", true
	case "PRT":
		return 0, "America/Puerto_Rico", true
	case "PST":
		return 0, "America/Los_Angeles", true
	case "SST":
		return 0, "Pacific/Guadalcanal", true
	case "VST":
		return 0, "Asia/Ho_Chi_Minh", true
	}
	return 0, "", false
}

// zoneCache loads region time zones once per Decoder. Regions need the
// system's time zone database; without it they do not parse.
type zoneCache map[string]*time.Location

// location returns the region named name, or nil when it is not a valid
// IANA region.
func (zc zoneCache) location(name string) *time.Location {
	if loc, ok := zc[name]; ok {
		return loc
	}
	var loc *time.Location
	if len(name) > 1 && (name[0] >= 'A' && name[0] <= 'Z' || name[0] >= 'a' && name[0] <= 'z') && name != "Local" {
		if l, err := time.LoadLocation(name); err == nil {
			loc = l
		}
	}
	zc[name] = loc
	return loc
}

// zoneOffset returns the offset in seconds east of UTC that zone text z
// (as Spark's ZoneId.of reads it) has at the given local date and time.
func (zc zoneCache) zoneOffset(z []byte, y, mo, d, h, mi, s int64) (int64, bool) {
	switch {
	case len(z) == 0, string(z) == "Z":
		return 0, true
	case z[0] == '+' || z[0] == '-':
		return parseOffset(z)
	}
	for _, prefix := range [...]string{"UTC", "GMT", "UT"} {
		if len(z) >= len(prefix) && string(z[:len(prefix)]) == prefix {
			rest := z[len(prefix):]
			if len(rest) == 0 {
				return 0, true
			}
			if rest[0] == '+' || rest[0] == '-' {
				return parseOffset(rest)
			}
			break
		}
	}
	name := string(z)
	off, region, ok := shortZone(name)
	if ok && region == "" {
		return off, true
	}
	if region == "" {
		region = name
	}
	loc := zc.location(region)
	if loc == nil {
		return 0, false
	}
	t := time.Date(int(y), time.Month(mo), int(d), int(h), int(mi), int(s), 0, loc)
	_, o := t.Zone()
	return int64(o), true
}

// timestamp parses any text of Spark's timestamp grammar (the general path
// behind dateCache.timestamp) into microseconds since the epoch.
func (zc zoneCache) timestamp(s []byte) (int64, bool) {
	p, ok := splitTimestamp(s)
	if !ok {
		return 0, false
	}
	y, mo, day, h, mi, sec := p.seg[0], p.seg[1], p.seg[2], p.seg[3], p.seg[4], p.seg[5]
	if !validDate(y, mo, day) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	var offset int64
	if p.zone != nil {
		if offset, ok = zc.zoneOffset(p.zone, y, mo, day, h, mi, sec); !ok {
			return 0, false
		}
	}
	return toMicros(y, mo, day, h, mi, sec, p.seg[6], offset)
}
