package functions

// refusedDefs defines the function groups Atlas refuses by name (variant, xml, avro, protobuf, spatial, vector), each with a message naming the function and its group.
func refusedDefs() []*Def {
	return nil
}
