package expr

// HasZone reports whether the pattern reads or writes a zone or an offset
// (X, x, Z, z, V, O): text parsed without one is a wall clock, which the
// caller places in the session time zone.
func (p *DatetimePattern) HasZone() bool { return tokensHaveZone(p.tokens) }

func tokensHaveZone(toks []patToken) bool {
	for _, t := range toks {
		switch {
		case t.isOpt && tokensHaveZone(t.optional):
			return true
		case t.letter == 'X', t.letter == 'x', t.letter == 'Z', t.letter == 'z', t.letter == 'V', t.letter == 'O':
			return true
		}
	}
	return false
}
