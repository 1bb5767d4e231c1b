package functions

// vectorDefs are Spark 4.1's vector functions over arrays of floats.
func vectorDefs() []*Def {
	return nil
}
