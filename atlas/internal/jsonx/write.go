package jsonx

import (
	"math"
	"strconv"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
)

// This file writes JSON as Spark's Jackson generator does: compact, strings
// escaped with Jackson's standard escapes, numbers re-printed from their
// parsed values (copyCurrentStructure).

const hexDigits = "0123456789ABCDEF"

// AppendQuoted appends s as a JSON string the way Jackson's generator
// escapes it: \" and \\, \b \t \f \n \r, other control characters as
// \u00XX (upper-case hex); '/' and non-ASCII characters are left as they are.
func AppendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		start = i + 1
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// NumberText is a number as Jackson's copyCurrentStructure writes it: an
// integer's digits (-0 as 0), a float as Java's Double.toString prints the
// double it parses to; NaN and the infinities quoted, as Jackson's default
// QUOTE_NON_NUMERIC_NUMBERS writes them.
func NumberText(v *Value) string {
	if !v.Float {
		if v.Text == "-0" {
			return "0"
		}
		return v.Text
	}
	f, _ := strconv.ParseFloat(v.Text, 64) // Java's parseDouble: ±Inf beyond range
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return `"` + numfmt.JavaFloat(f, 64) + `"`
	}
	return numfmt.JavaFloat(f, 64)
}

// AppendJSON appends v as compact JSON, as Jackson's copyCurrentStructure
// writes it.
func AppendJSON(dst []byte, v *Value) []byte {
	switch v.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		return append(dst, v.Text...)
	case Number:
		return append(dst, NumberText(v)...)
	case String:
		return AppendQuoted(dst, v.Text)
	case Array:
		dst = append(dst, '[')
		for i, e := range v.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSON(dst, e)
		}
		return append(dst, ']')
	}
	dst = append(dst, '{')
	for i, k := range v.Keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendQuoted(dst, k)
		dst = append(dst, ':')
		dst = AppendJSON(dst, v.Elems[i])
	}
	return append(dst, '}')
}
