package functions

// formatDefs defines to_char, to_varchar, to_number and try_to_number: Spark's number format patterns.
func formatDefs() []*Def {
	return nil
}
