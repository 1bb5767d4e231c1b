package jsonx

import (
	"unicode/utf16"
	"unicode/utf8"
)

// appendText appends the text of string content src (already checked by
// scanString) to dst: escapes decoded, invalid UTF-8 replaced by U+FFFD. An
// unpaired surrogate escape becomes '?', which is what Spark's
// UTF8String.fromString makes of it. This is the slow path, taken only for
// strings with a backslash or invalid UTF-8.
func appendText(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\\':
			e := src[i+1]
			i += 2
			switch e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(src[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					if r < 0xDC00 && i+6 <= len(src) && src[i] == '\\' && src[i+1] == 'u' {
						if lo := hex4(src[i+2:]); lo >= 0xDC00 && lo <= 0xDFFF {
							dst = utf8.AppendRune(dst, utf16.DecodeRune(r, lo))
							i += 6
							continue
						}
					}
					dst = append(dst, '?')
					continue
				}
				dst = utf8.AppendRune(dst, r)
			default: // '"', '\\', '/', '\''
				dst = append(dst, e)
			}
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, src[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

// hex4 decodes the four hex digits at the start of b (checked by
// scanString).
func hex4(b []byte) rune {
	return rune(unhex(b[0])<<12 | unhex(b[1])<<8 | unhex(b[2])<<4 | unhex(b[3]))
}
