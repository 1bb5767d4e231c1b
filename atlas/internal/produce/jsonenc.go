package produce

import (
	"strconv"
)

// TimeLayout is the layout of every "ts" field the generators write:
// ISO-8601 in UTC with exactly three fractional digits, such as
// 2026-11-30T10:15:30.123Z. time.Parse(TimeLayout, s) and
// time.Parse(time.RFC3339Nano, s) both read it back.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// appendJSONString appends s as a JSON string literal. Generated strings are
// ASCII; quotes, backslashes and control characters are escaped anyway so the
// output is valid JSON whatever the input.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// appendJSONDouble appends f in its shortest form, always with a decimal
// point (17850.0, 2.55), so the value reads as a double in any JSON reader.
func appendJSONDouble(b []byte, f float64) []byte {
	start := len(b)
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	for _, c := range b[start:] {
		if c == '.' {
			return b
		}
	}
	return append(b, '.', '0')
}
