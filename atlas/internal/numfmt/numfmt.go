// Package numfmt formats numbers for people: the progress line, the live
// view and the producer's summary share it.
package numfmt

import (
	"strconv"
	"strings"
)

// Group writes n with a comma between groups of three digits: 1,234,567.
func Group(n int64) string {
	s := strconv.FormatInt(n, 10)
	digits := strings.TrimPrefix(s, "-")
	var sb strings.Builder
	sb.Grow(len(s) + len(digits)/3)
	if len(digits) < len(s) {
		sb.WriteByte('-')
	}
	for i := 0; i < len(digits); i++ {
		if i > 0 && (len(digits)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte(digits[i])
	}
	return sb.String()
}
