package functions

// jsonMoreDefs defines the json group beyond from_json: to_json, get_json_object, json_tuple, schema_of_json, json_array_length, json_object_keys.
func jsonMoreDefs() []*Def {
	return nil
}
