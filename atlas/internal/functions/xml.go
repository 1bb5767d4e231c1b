package functions

// xmlDefs are Spark's XML functions (xpath_* and from_xml/to_xml/schema_of_xml).
func xmlDefs() []*Def {
	return nil
}
