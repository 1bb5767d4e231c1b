package functions

// urlDefs defines the url group: parse_url, url_encode, url_decode and their try_ forms.
func urlDefs() []*Def {
	return nil
}
