package functions

// mapDefs defines the map group: map, map_keys, map_values, map_entries, map_from_arrays and the like.
func mapDefs() []*Def {
	return nil
}
