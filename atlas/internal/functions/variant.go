package functions

// variantDefs are Spark 4's VARIANT functions.
func variantDefs() []*Def {
	return nil
}
