package expr

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/jsonx"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// MetricMalformed counts records from_json could not parse.
const MetricMalformed = "numMalformedRows"

// FromJSON is Spark's from_json(column, schema) in PERMISSIVE mode: it
// parses a string (or binary) column of JSON objects into a struct with the
// schema's fields. Records that are not valid JSON, or whose fields have the
// wrong type, give nulls and are counted in the numMalformedRows metric;
// they never stop the query.
type FromJSON struct {
	X      Expr
	Schema *arrow.Schema
}

func (f *FromJSON) String() string { return "from_json(" + f.X.String() + ")" }

// Bind checks the input is text and prepares a decoder.
func (f *FromJSON) Bind(s *arrow.Schema) (Bound, error) {
	x, err := f.X.Bind(s)
	if err != nil {
		return nil, err
	}
	if id := x.Type().ID(); id != arrow.STRING && id != arrow.BINARY {
		return nil, fmt.Errorf("from_json(%s): the input must be string or binary, got %s", f.X, types.Name(x.Type()))
	}
	dec, err := jsonx.NewDecoder(f.Schema, jsonx.Options{})
	if err != nil {
		return nil, fmt.Errorf("from_json(%s): %w", f.X, err)
	}
	b := &fromJSONBound{x: x, schema: f.Schema, typ: arrow.StructOf(f.Schema.Fields()...)}
	b.decoders.Put(dec)
	return b, nil
}

// fromJSONBound keeps its decoders (which reuse buffers between calls and
// are not safe for concurrent use) in a pool, so that the bound expression
// is, like every Bound, safe to evaluate from several goroutines: each
// call decodes with a decoder no other call holds.
type fromJSONBound struct {
	x        Bound
	schema   *arrow.Schema
	typ      arrow.DataType
	decoders sync.Pool // of *jsonx.Decoder
}

func (b *fromJSONBound) decoder() (*jsonx.Decoder, error) {
	if d, ok := b.decoders.Get().(*jsonx.Decoder); ok {
		return d, nil
	}
	return jsonx.NewDecoder(b.schema, jsonx.Options{})
}

func (b *fromJSONBound) Type() arrow.DataType { return b.typ }
func (b *fromJSONBound) Nullable() bool       { return true }
func (b *fromJSONBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	if loc := c.Zone(); !isUTC(loc) && hasTimestamp(b.typ) {
		return nil, fmt.Errorf("from_json: reading a timestamp field in the session time zone %s is not supported yet (Atlas's JSON reader reads text without a zone as UTC); set spark.sql.session.timeZone to UTC or read the field as a string and cast it", loc)
	}
	dec, err := b.decoder()
	if err != nil {
		return nil, fmt.Errorf("from_json: %w", err)
	}
	out, stats, err := dec.Decode(in)
	b.decoders.Put(dec)
	if err != nil {
		return nil, fmt.Errorf("from_json: %w", err)
	}
	c.Add(MetricMalformed, stats.Malformed)
	return out, nil
}
