package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/avrox"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// FromAvro is Spark's from_avro(column, jsonFormatSchema, options): it
// reads a binary column of Avro values (bare, or framed with the schema's
// single-object fingerprint or a Confluent schema id, option framing) into
// the schema's Spark type. In mode PERMISSIVE a value that cannot be read
// is null and counted in numMalformedAvroRecords or, when it carries
// another schema's fingerprint or id, numUnknownAvroSchemaRecords; in
// mode FAILFAST (the default, as in Spark) it fails the query.
type FromAvro struct {
	X       Expr
	Schema  string
	Options map[string]string
}

func (f *FromAvro) String() string { return "from_avro(" + f.X.String() + ")" }

// Bind checks the input is binary and prepares a decoder.
func (f *FromAvro) Bind(s *arrow.Schema) (Bound, error) {
	x, err := f.X.Bind(s)
	if err != nil {
		return nil, err
	}
	if id := x.Type().ID(); id != arrow.BINARY && id != arrow.STRING {
		return nil, fmt.Errorf("from_avro(%s): the input must be binary, got %s", f.X, types.Name(x.Type()))
	}
	opts, err := avrox.ParseOptions(f.Options)
	if err != nil {
		return nil, err
	}
	dec, err := avrox.NewDecoder(f.Schema, opts)
	if err != nil {
		return nil, err
	}
	return &fromAvroBound{x: x, dec: dec}, nil
}

type fromAvroBound struct {
	x   Bound
	dec *avrox.Decoder
}

func (b *fromAvroBound) Type() arrow.DataType { return b.dec.Type() }
func (b *fromAvroBound) Nullable() bool       { return true }
func (b *fromAvroBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	out, st, err := b.dec.Decode(c.Mem, in)
	if err != nil {
		return nil, err
	}
	c.Add(avrox.MetricMalformed, st.Malformed)
	c.Add(avrox.MetricUnknownSchema, st.UnknownSchema)
	return out, nil
}

// ToAvro is Spark's to_avro(column[, jsonFormatSchema]): it writes a column
// as Avro binary, with the given schema or the one Spark derives from the
// column's type.
type ToAvro struct {
	X      Expr
	Schema string
}

func (t *ToAvro) String() string { return "to_avro(" + t.X.String() + ")" }

// Bind prepares an encoder for the input's type.
func (t *ToAvro) Bind(s *arrow.Schema) (Bound, error) {
	x, err := t.X.Bind(s)
	if err != nil {
		return nil, err
	}
	enc, err := avrox.NewEncoder(x.Type(), x.Nullable(), t.Schema)
	if err != nil {
		return nil, err
	}
	return &toAvroBound{x: x, enc: enc}, nil
}

type toAvroBound struct {
	x   Bound
	enc *avrox.Encoder
}

func (b *toAvroBound) Type() arrow.DataType { return arrow.BinaryTypes.Binary }
func (b *toAvroBound) Nullable() bool       { return b.x.Nullable() }
func (b *toAvroBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	return b.enc.Encode(c.Mem, in)
}
