package functions

// intervalMoreDefs are the functions and operators over Spark's interval types beyond interval_ym.go.
func intervalMoreDefs() []*Def {
	return nil
}
