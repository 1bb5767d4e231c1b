package functions

// miscDefs defines the misc group: session constants, bitmap positions, aes_* and the like.
func miscDefs() []*Def {
	return nil
}
