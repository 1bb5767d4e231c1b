package jsonx

import (
	"encoding/base64"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// parseObject parses the members of an object whose '{' is at b[i-1] into
// the slots of lv and returns the position after its '}'. A syntax error
// anywhere is returned; a value that does not fit its field marks the row
// bad and leaves the field as it was.
func (d *Decoder) parseObject(b []byte, i int, lv *level, depth int) (int, synErr) {
	if depth > maxDepth {
		return i, synDepth
	}
	lv.reset()
	i = skipWS(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1, synOK
	}
	hint := 0
	for {
		if i >= len(b) {
			return i, synEOF
		}
		q := b[i]
		if q != '"' && q != '\'' {
			return i, synUnexpected
		}
		var (
			col, end int
			err      synErr
		)
		if k := lv.expectedKey(hint); q == '"' && k != "" && len(b)-(i+1) >= len(k) && string(b[i+1:i+1+len(k)]) == k {
			// The key the schema's order expects, read without a scan.
			col, end = hint, i+len(k)
		} else {
			var flags uint8
			if end, flags, err = scanString(b, i+1, classOf(q)); err != synOK {
				return end, err
			}
			key := b[i+1 : end]
			if flags&strEscaped != 0 {
				d.keyBuf = appendText(d.keyBuf[:0], key)
				key = d.keyBuf
			}
			col = lv.lookup(key, hint, d.opts.CaseInsensitive)
		}
		if i, err = skipColon(b, end+1); err != synOK {
			return i, err
		}
		if col < 0 {
			i, err = skipValue(b, i, depth)
		} else {
			hint = col + 1
			i, err = d.parseField(b, i, lv, col, depth)
		}
		if err != synOK {
			return i, err
		}
		var more bool
		if i, more, err = nextMember(b, i, '}'); err != synOK || !more {
			return i, err
		}
	}
}

// parseField parses the value at b[i] (not whitespace) into the slot of
// column col of lv and returns the position after it.
func (d *Decoder) parseField(b []byte, i int, lv *level, col int, depth int) (int, synErr) {
	c, s := &lv.cols[col], &lv.slots[col]
	ch := b[i]
	if ch == 'n' && hasLit(b, i, "null") {
		s.state = slotNull
		return i + 4, synOK
	}
	switch c.kind {
	case kindString:
		if ch == '"' || ch == '\'' {
			return d.parseText(b, i, s)
		}
		// Any other value is kept as its JSON text.
		end, err := skipValue(b, i, depth)
		if err == synOK {
			s.setText(i, end, false)
		}
		return end, err

	case kindBinary:
		if ch == '"' || ch == '\'' {
			if !d.opts.BinaryBase64 {
				return d.parseText(b, i, s)
			}
			return d.parseBase64(b, i, c, s)
		}

	case kindInt8, kindInt16, kindInt32, kindInt64:
		if isDigit(ch) || (ch == '-' && i+1 < len(b) && isDigit(b[i+1])) {
			n, end, err := scanNumber(b, i)
			if err != synOK {
				return end, err
			}
			if v, ok := n.int64(); ok && fits(c.kind, v) {
				s.setInt(v)
			} else {
				d.mismatch(c, b[i:end])
			}
			return end, synOK
		}

	case kindFloat32, kindFloat64:
		if isDigit(ch) || (ch == '-' && i+1 < len(b) && isDigit(b[i+1])) {
			n, end, err := scanNumber(b, i)
			if err != synOK {
				return end, err
			}
			s.setFloat(parseFloat(&n, b[i:end], c.kind == kindFloat32))
			return end, synOK
		}
		if sp, end := scanSpecial(b, i); sp != specialNone {
			s.setFloat(specialValue(sp))
			return end, synOK
		}
		if ch == '"' || ch == '\'' {
			text, end, err := d.stringText(b, i)
			if err != synOK {
				return end, err
			}
			if sp, n := scanSpecial(text, 0); sp != specialNone && n == len(text) {
				s.setFloat(specialValue(sp))
			} else {
				d.mismatch(c, b[i:end])
			}
			return end, synOK
		}

	case kindBool:
		if ch == 't' && hasLit(b, i, "true") {
			s.setInt(1)
			return i + 4, synOK
		}
		if ch == 'f' && hasLit(b, i, "false") {
			s.setInt(0)
			return i + 5, synOK
		}

	case kindTimestamp:
		if ch == '"' || ch == '\'' {
			text, end, err := d.stringText(b, i)
			if err != synOK {
				return end, err
			}
			if v, ok := d.parseTimestamp(text); ok {
				s.setInt(v)
			} else {
				d.mismatch(c, b[i:end])
			}
			return end, synOK
		}
		if isDigit(ch) || (ch == '-' && i+1 < len(b) && isDigit(b[i+1])) {
			// Spark reads a JSON integer as seconds since the epoch.
			n, end, err := scanNumber(b, i)
			if err != synOK {
				return end, err
			}
			if v, ok := n.int64(); ok && v <= maxSeconds && v >= -maxSeconds {
				s.setInt(v * microsPerSecond)
			} else {
				d.mismatch(c, b[i:end])
			}
			return end, synOK
		}

	case kindDate:
		if ch == '"' || ch == '\'' {
			text, end, err := d.stringText(b, i)
			if err != synOK {
				return end, err
			}
			if v, ok := d.parseDate(text); ok {
				s.setInt(int64(v))
			} else {
				d.mismatch(c, b[i:end])
			}
			return end, synOK
		}

	case kindStruct:
		if ch == '{' {
			end, err := d.parseObject(b, i+1, c.child, depth+1)
			if err == synOK {
				s.state = slotValue
			}
			return end, err
		}
	}
	// The value is valid JSON of another type: the field stays as it was and
	// the row is malformed.
	end, err := skipValue(b, i, depth)
	if err == synOK {
		d.mismatch(c, b[i:end])
	}
	return end, err
}

// parseText parses the string at b[i] into s as text: a slice of the input
// when it has no escapes and valid UTF-8, else its decoded copy in scratch.
func (d *Decoder) parseText(b []byte, i int, s *slot) (int, synErr) {
	end, flags, err := scanString(b, i+1, classOf(b[i]))
	if err != synOK {
		return end, err
	}
	if flags == 0 || (flags == strHigh && utf8.Valid(b[i+1:end])) {
		s.setText(i+1, end, false)
	} else {
		off := len(d.scratch)
		d.scratch = appendText(d.scratch, b[i+1:end])
		s.setText(off, len(d.scratch), true)
	}
	return end + 1, synOK
}

// stringText returns the decoded text of the string at b[i] and the
// position after it. The text may live in scratch until the next call.
func (d *Decoder) stringText(b []byte, i int) ([]byte, int, synErr) {
	end, flags, err := scanString(b, i+1, classOf(b[i]))
	if err != synOK {
		return nil, end, err
	}
	if flags == 0 {
		return b[i+1 : end], end + 1, synOK
	}
	off := len(d.scratch)
	d.scratch = appendText(d.scratch, b[i+1:end])
	text := d.scratch[off:]
	d.scratch = d.scratch[:off]
	return text, end + 1, synOK
}

// parseBase64 decodes the base64 string at b[i] into s, as Spark reads
// binary fields (padding optional).
func (d *Decoder) parseBase64(b []byte, i int, c *column, s *slot) (int, synErr) {
	text, end, err := d.stringText(b, i)
	if err != synOK {
		return end, err
	}
	enc := base64.StdEncoding
	if len(text)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	d.decoded = slices.Grow(d.decoded[:0], enc.DecodedLen(len(text)))
	n, derr := enc.Decode(d.decoded[:cap(d.decoded)], text)
	if derr != nil {
		d.mismatch(c, b[i:end])
		return end, synOK
	}
	off := len(d.scratch)
	d.scratch = append(d.scratch, d.decoded[:n]...)
	s.setText(off, len(d.scratch), true)
	return end, synOK
}

// fits reports whether v is in range for an integral kind.
func fits(k kind, v int64) bool {
	switch k {
	case kindInt8:
		return v >= math.MinInt8 && v <= math.MaxInt8
	case kindInt16:
		return v >= math.MinInt16 && v <= math.MaxInt16
	case kindInt32:
		return v >= math.MinInt32 && v <= math.MaxInt32
	}
	return true
}

// parseFloat converts a scanned number with text raw, correctly rounded to
// float32 or float64. Out-of-range values become ±Inf, as in Java.
func parseFloat(n *number, raw []byte, is32 bool) float64 {
	if is32 {
		if !n.inexact && n.exp == 0 && n.mant < 1<<24 {
			if n.neg {
				return -float64(n.mant)
			}
			return float64(n.mant)
		}
		f, _ := strconv.ParseFloat(string(raw), 32)
		return f
	}
	if f, ok := n.float64(); ok {
		return f
	}
	f, _ := strconv.ParseFloat(string(raw), 64)
	return f
}

func specialValue(sp int) float64 {
	switch sp {
	case specialPosInf:
		return math.Inf(1)
	case specialNegInf:
		return math.Inf(-1)
	}
	return math.NaN()
}

// parseTimestamp converts timestamp text to microseconds since the epoch.
func (d *Decoder) parseTimestamp(s []byte) (int64, bool) {
	if d.opts.TimestampLayout != "" {
		t, err := time.Parse(d.opts.TimestampLayout, string(s))
		if err != nil {
			return 0, false
		}
		return t.UnixMicro(), true
	}
	if v, ok, handled := d.dates.timestamp(s); handled {
		return v, ok
	}
	return d.zones.timestamp(s)
}

// parseDate converts date text to days since the epoch.
func (d *Decoder) parseDate(s []byte) (int32, bool) {
	if d.opts.DateLayout != "" {
		t, err := time.Parse(d.opts.DateLayout, string(s))
		if err != nil {
			return 0, false
		}
		days := daysFromCivil(int64(t.Year()), int64(t.Month()), int64(t.Day()))
		if days < math.MinInt32 || days > math.MaxInt32 {
			return 0, false
		}
		return int32(days), true
	}
	return parseDate(s)
}
