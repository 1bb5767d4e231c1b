package functions

// csvDefs defines the csv group: from_csv, to_csv and schema_of_csv.
func csvDefs() []*Def {
	return nil
}
