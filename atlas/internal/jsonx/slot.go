package jsonx

// Slot states.
const (
	slotAbsent uint8 = iota // the key has not been seen in this row
	slotNull                // JSON null
	slotValue               // a converted value
)

// slot holds one field's converted value for the row being parsed. The
// row's slots are appended to the builders only once the whole row is known
// to be valid JSON, since a syntax error anywhere nulls every field.
type slot struct {
	state     uint8
	inScratch bool    // text is scratch[off:end] rather than the input's
	off, end  int     // text of string and binary values
	i         int64   // integers, booleans (0/1), timestamps, dates
	f         float64 // floats
}

func (s *slot) setText(off, end int, inScratch bool) {
	s.state, s.off, s.end, s.inScratch = slotValue, off, end, inScratch
}

func (s *slot) setInt(v int64) { s.state, s.i = slotValue, v }

func (s *slot) setFloat(v float64) { s.state, s.f = slotValue, v }
