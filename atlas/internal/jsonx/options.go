package jsonx

// Options adjusts a Decoder. The zero value is Spark's from_json with its
// default options, except for binary fields (see BinaryBase64).
type Options struct {
	// CaseInsensitive matches a JSON key to a schema field ignoring case
	// when no field has exactly that name. Spark matches exactly; exact
	// matches always win.
	CaseInsensitive bool

	// BinaryBase64 decodes binary fields from base64, as Spark does. By
	// default a binary field takes the string's unescaped bytes as they are.
	BinaryBase64 bool

	// TimestampLayout, when set, is the Go time layout (see time.Parse)
	// every timestamp string must match, like Spark's timestampFormat
	// option; text without a zone is UTC. Empty means Spark's default
	// timestamp grammar.
	TimestampLayout string

	// DateLayout, when set, is the Go time layout every date string must
	// match, like Spark's dateFormat option. Empty means Spark's default
	// date grammar.
	DateLayout string
}

// Stats describes the rows of one Decode call that did not fully convert.
type Stats struct {
	// Malformed counts rows that were not valid JSON, were not a JSON
	// object, or had a field whose value did not fit the field's type.
	// Null, empty and all-whitespace values are not malformed.
	Malformed int64

	// FirstError describes the first malformed row, such as
	// `row 17: field "ts": cannot parse "abc" as timestamp`; rows are
	// numbered from 0 within the batch. Empty when Malformed is 0.
	FirstError string
}
