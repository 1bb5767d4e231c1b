// Package jsonx is Spark's from_json(col, schema) for Atlas: it decodes a
// column of JSON texts (Kafka message values) into an Arrow struct array whose
// fields are the schema's columns, with Spark 3.4+ PERMISSIVE semantics.
//
// # Why it is hand-written
//
// It is the engine's hot path: millions of small records per second per core.
// No well-kept Go library decodes JSON straight into Arrow builders with
// Spark's PERMISSIVE rules. encoding/json and map[string]any allocate per
// value; arrow-go's array.FromJSON and array.JSONReader fail the whole batch
// on one bad row and know nothing of Spark's null rules. So jsonx is a
// single-pass scanner over the bytes of each value: fields are looked up in
// a small precomputed table, values are parsed into per-field slots (no
// allocation per row), and a row's slots are appended to reusable Arrow
// builders once the row is known to be valid JSON. Strings are sliced out of
// the input; only strings with a backslash (or invalid UTF-8) take a slow
// path that unescapes them into a scratch buffer.
//
// # Semantics (checked against Spark's JacksonParser and JsonToStructs)
//
// Row results:
//   - A null input value gives a null struct row. So does an empty or
//     all-whitespace value (Spark's parser yields no row for it); neither
//     counts as malformed.
//   - A value that is not valid JSON, is truncated, or whose top level is not
//     an object (an array, a number, a string, null) gives a non-null struct
//     whose fields are all null, and counts as malformed. This is Spark 3.x:
//     since 3.0 from_json yields Row(null, ...) for a malformed record where
//     2.4 yielded null.
//   - A field whose JSON value does not fit the field's type gives null for
//     that field only; the other fields keep their values and the row counts
//     as malformed. This is Spark's partial result, which Spark 3.4+ applies
//     at every nesting level (spark.sql.json.enablePartialResults, default
//     true): a mismatch inside a nested struct nulls only that leaf.
//   - A missing field is null and is not malformed. Unknown fields are
//     skipped (still checked to be valid JSON). JSON null gives null.
//   - A key that appears twice: the last value that converts wins; a later
//     value that does not convert leaves the earlier one (and marks the row
//     malformed), as in Spark.
//   - Bytes after the top-level object are ignored, as Jackson stops there.
//
// Field names match case-sensitively, as Spark's JSON parser does (it looks
// names up with StructType.getFieldIndex, whatever spark.sql.caseSensitive
// says). Options.CaseInsensitive adds a case-insensitive match for keys that
// have no exact match.
//
// JSON accepted (Spark's JSONOptions defaults): strict JSON plus
// single-quoted strings and keys (allowSingleQuotes=true) and the non-numeric
// numbers NaN, Infinity, +Infinity, -Infinity, +INF and -INF
// (allowNonNumericNumbers=true). Not accepted: comments, unquoted names,
// leading zeros, a leading '+' on numbers, trailing commas, raw control
// characters in strings, escapes other than \" \\ \/ \b \f \n \r \t \' \uXXXX.
// Nesting deeper than 1000 levels is malformed. Invalid UTF-8 is replaced by
// U+FFFD in string values (Spark decodes the value with a replacing
// InputStreamReader); an unpaired \uD800-\uDFFF escape becomes '?' (what
// Java's UTF-8 encoder writes for it).
//
// Conversions by field type:
//   - string: a JSON string gives its unescaped text; any other value (number,
//     true, object, array) gives its exact JSON text as written, as Spark's
//     exact string parsing does.
//   - tinyint, smallint, int, bigint: JSON integers only, in range. 6.0, 6.5,
//     1e2, "6" and "" do not fit (Jackson reads them as float or string
//     tokens, which Spark rejects for integral types).
//   - float, double: any JSON number, the non-numeric tokens above, and the
//     strings "NaN", "Infinity", "+Infinity", "-Infinity", "+INF", "-INF".
//     Other strings do not fit. Numbers too large become ±Inf, as Java's
//     Double.parseDouble does.
//   - boolean: true and false only.
//   - timestamp: a string in Spark's default timestamp grammar (that of
//     CAST(string AS timestamp)): yyyy[-[m]m[-[d]d[(T| )[h]h[:[m]m[:[s]s
//     [.fraction]]]]]] followed by an optional zone: Z, ±h, ±hh, ±hh:mm,
//     ±hhmm, ±hh:mm:ss, UTC/GMT/UT with or without an offset, a short id
//     such as PST, or a region such as Europe/Paris. Fractions beyond
//     microseconds are truncated. Text without a zone is UTC (Atlas's
//     session time zone). A JSON integer is seconds since the epoch
//     (Spark's JacksonParser multiplies it by 1e6); a JSON float does not
//     fit. Time-only text such as "10:15:30", which Spark resolves against
//     today's date, does not fit. Options.TimestampLayout replaces the
//     grammar by a Go time layout, like Spark's timestampFormat option.
//   - date: a string yyyy[-[m]m[-[d]d]] optionally followed by ' ' or 'T' and
//     anything (so a timestamp string gives its date), or a plain integer
//     string that is not a valid year, read as days since the epoch (Spark's
//     1.5 fallback). Options.DateLayout replaces the grammar by a Go layout.
//   - binary: the string's bytes, unescaped (not base64: the Atlas default).
//     Spark decodes BinaryType from base64; Options.BinaryBase64 does that.
//   - struct: a JSON object, decoded with the same rules recursively.
//
// Stats.FirstError names the first problem of a batch, with the row index
// (0-based within the batch) and the field path, such as
//
//	row 17: field "ts": cannot parse "abc" as timestamp
package jsonx
