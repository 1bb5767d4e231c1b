package functions

// mathExtraDefs defines math functions beyond math_more.go: div, conv and the like.
func mathExtraDefs() []*Def {
	return nil
}
