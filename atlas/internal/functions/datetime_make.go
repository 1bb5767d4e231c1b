package functions

// datetimeMakeDefs defines the make_* and try_* datetime constructors, current_* and unix_* functions.
func datetimeMakeDefs() []*Def {
	return nil
}
