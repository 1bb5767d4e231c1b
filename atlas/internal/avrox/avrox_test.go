package avrox

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/avro"
)

const paymentSchema = `{"type":"record","name":"PaymentEvent","namespace":"fraudtwin",
 "fields":[
  {"name":"event_id","type":"string"},
  {"name":"account","type":"long"},
  {"name":"amount","type":"double"},
  {"name":"merchant","type":["null","string"],"default":null},
  {"name":"event_time","type":{"type":"long","logicalType":"timestamp-millis"}},
  {"name":"channel","type":{"type":"enum","name":"Channel","symbols":["WEB","POS"]}},
  {"name":"tags","type":{"type":"array","items":"string"}},
  {"name":"geo","type":{"type":"record","name":"Geo","fields":[{"name":"lat","type":"float"},{"name":"lon","type":"float"}]}}
 ]}`

// rabin64 is CRC-64-AVRO as the Avro specification writes it, independent
// of the library.
func rabin64(b []byte) uint64 {
	const empty = 0xc15d213aa4d7a795
	var table [256]uint64
	for i := range table {
		fp := uint64(i)
		for j := 0; j < 8; j++ {
			fp = (fp >> 1) ^ (empty & -(fp & 1))
		}
		table[i] = fp
	}
	fp := uint64(empty)
	for _, c := range b {
		fp = (fp >> 8) ^ table[byte(fp)^c]
	}
	return fp
}

type payment struct {
	id       string
	account  int64
	amount   float64
	merchant *string
	at       time.Time
	channel  string
	tags     []string
	lat, lon float32
}

func (p payment) avroMap() map[string]any {
	tags := make([]any, len(p.tags))
	for i, t := range p.tags {
		tags[i] = t
	}
	var merchant any
	if p.merchant != nil {
		merchant = *p.merchant
	}
	return map[string]any{"event_id": p.id, "account": p.account, "amount": p.amount, "merchant": merchant,
		"event_time": p.at, "channel": p.channel, "tags": tags, "geo": map[string]any{"lat": p.lat, "lon": p.lon}}
}

func binaryArray(vals [][]byte) arrow.Array {
	b := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(v)
		}
	}
	return b.NewArray()
}

// TestFromAvroSingleObjectFraming decodes records the library encoded
// itself in the single-object encoding, next to a record of another
// schema (unknown fingerprint), a truncated one, one with no header and a
// null: the good ones come out field by field, the bad ones are null and
// counted.
func TestFromAvroSingleObjectFraming(t *testing.T) {
	s := avro.MustParse(paymentSchema)
	other := avro.MustParse(`{"type":"record","name":"Other","fields":[{"name":"x","type":"long"}]}`)
	m := "shop-7"
	pays := []payment{
		{"e1", 42, 12.5, &m, time.UnixMilli(1_700_000_000_123).UTC(), "POS", []string{"a", "b"}, 1.5, -2.25},
		{"e2", 7, 0.01, nil, time.UnixMilli(1_700_000_100_000).UTC(), "WEB", nil, 0, 0},
	}
	var vals [][]byte
	for _, p := range pays {
		b, err := s.AppendSingleObject(nil, p.avroMap())
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, b)
	}
	// The header is C3 01 + the spec's fingerprint of the canonical form.
	fp := rabin64(s.Canonical())
	if vals[0][0] != 0xC3 || vals[0][1] != 0x01 || binary.LittleEndian.Uint64(vals[0][2:10]) != fp {
		t.Fatalf("library header % x, spec fingerprint %016x", vals[0][:10], fp)
	}
	unknown, _ := other.AppendSingleObject(nil, map[string]any{"x": int64(1)})
	truncated := append([]byte(nil), vals[0][:len(vals[0])-3]...)
	bare, _ := s.Encode(pays[0].avroMap())
	vals = append(vals, unknown, truncated, bare, nil)

	d, err := NewDecoder(paymentSchema, Options{Permissive: true, Framing: SingleObject})
	if err != nil {
		t.Fatal(err)
	}
	if d.Fingerprint() != fp {
		t.Fatalf("decoder fingerprint %016x, want %016x", d.Fingerprint(), fp)
	}
	in := binaryArray(vals)
	defer in.Release()
	out, st, err := d.Decode(memory.DefaultAllocator, in)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if st.UnknownSchema != 1 || st.Malformed != 2 {
		t.Fatalf("stats %+v, want 1 unknown and 2 malformed", st)
	}
	sa := out.(*array.Struct)
	for i := 2; i < 6; i++ {
		if !sa.IsNull(i) {
			t.Errorf("row %d is not null", i)
		}
	}
	for i, p := range pays {
		if sa.IsNull(i) {
			t.Fatalf("row %d is null", i)
		}
		if got := sa.Field(0).(*array.String).Value(i); got != p.id {
			t.Errorf("event_id %q, want %q", got, p.id)
		}
		if got := sa.Field(1).(*array.Int64).Value(i); got != p.account {
			t.Errorf("account %d", got)
		}
		if got := sa.Field(2).(*array.Float64).Value(i); got != p.amount {
			t.Errorf("amount %v", got)
		}
		mer := sa.Field(3).(*array.String)
		if (p.merchant == nil) != mer.IsNull(i) || (p.merchant != nil && mer.Value(i) != *p.merchant) {
			t.Errorf("merchant row %d", i)
		}
		if got := sa.Field(4).(*array.Timestamp).Value(i); int64(got) != p.at.UnixMicro() {
			t.Errorf("event_time %d, want %d", got, p.at.UnixMicro())
		}
		if got := sa.Field(5).(*array.String).Value(i); got != p.channel {
			t.Errorf("channel %q", got)
		}
		tags := sa.Field(6).(*array.List)
		a, b := tags.ValueOffsets(i)
		if int(b-a) != len(p.tags) {
			t.Errorf("tags %d, want %d", b-a, len(p.tags))
		}
		for j := a; j < b; j++ {
			if got := tags.ListValues().(*array.String).Value(int(j)); got != p.tags[j-a] {
				t.Errorf("tag %q", got)
			}
		}
		geo := sa.Field(7).(*array.Struct)
		if geo.Field(0).(*array.Float32).Value(i) != p.lat || geo.Field(1).(*array.Float32).Value(i) != p.lon {
			t.Errorf("geo row %d", i)
		}
	}
	if !strings.Contains(st.FirstError, "row 2: schema fingerprint") {
		t.Errorf("first error %q", st.FirstError)
	}

	// FAILFAST (Spark's default) stops at the first bad record.
	ff, _ := NewDecoder(paymentSchema, Options{Framing: SingleObject})
	if _, _, err := ff.Decode(memory.DefaultAllocator, in); err == nil || !strings.Contains(err.Error(), "row 2") || !strings.Contains(err.Error(), "PERMISSIVE") {
		t.Fatalf("FAILFAST: %v", err)
	}
}

// TestFromAvroConfluentFraming reads the Confluent wire format: magic 0,
// big-endian schema id, payload.
func TestFromAvroConfluentFraming(t *testing.T) {
	s := avro.MustParse(`{"type":"record","name":"R","fields":[{"name":"x","type":"long"}]}`)
	frame := func(id uint32, x int64) []byte {
		b := []byte{0, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(b[1:], id)
		b, _ = s.AppendEncode(b, map[string]any{"x": x})
		return b
	}
	opts, err := ParseOptions(map[string]string{"mode": "PERMISSIVE", "framing": "confluent", "schemaId": "17"})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := NewDecoder(s.String(), opts)
	in := binaryArray([][]byte{frame(17, 5), frame(18, 6), {1, 2}, frame(17, -9)})
	defer in.Release()
	out, st, err := d.Decode(memory.DefaultAllocator, in)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	xs := out.(*array.Struct).Field(0).(*array.Int64)
	if st.UnknownSchema != 1 || st.Malformed != 1 || xs.Value(0) != 5 || xs.Value(3) != -9 || !out.IsNull(1) || !out.IsNull(2) {
		t.Fatalf("stats %+v, out %v", st, out)
	}
	if _, err := ParseOptions(map[string]string{"framing": "confluent"}); err == nil || !strings.Contains(err.Error(), "schemaId") {
		t.Fatalf("confluent without id: %v", err)
	}
	if _, err := ParseOptions(map[string]string{"mode": "DROP"}); err == nil {
		t.Fatal("bad mode accepted")
	}
}

// TestToAvroRoundTrip writes a struct column with the schema Spark derives
// and reads it back with the library.
func TestToAvroRoundTrip(t *testing.T) {
	st := arrow.StructOf(
		arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "name", Type: arrow.BinaryTypes.String, Nullable: false},
		arrow.Field{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	)
	js, err := SchemaFor(st, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"fields":[{"name":"id","type":["long","null"]},{"name":"name","type":"string"},{"name":"at","type":[{"logicalType":"timestamp-micros","type":"long"},"null"]}],"name":"topLevelRecord","type":"record"}`
	if js != want {
		t.Fatalf("derived schema\n got %s\nwant %s", js, want)
	}
	b := array.NewStructBuilder(memory.DefaultAllocator, st)
	defer b.Release()
	b.Append(true)
	b.FieldBuilder(0).(*array.Int64Builder).Append(3)
	b.FieldBuilder(1).(*array.StringBuilder).Append("x")
	b.FieldBuilder(2).(*array.TimestampBuilder).Append(1_700_000_000_000_001)
	b.Append(true)
	b.FieldBuilder(0).(*array.Int64Builder).AppendNull()
	b.FieldBuilder(1).(*array.StringBuilder).Append("y")
	b.FieldBuilder(2).(*array.TimestampBuilder).AppendNull()
	in := b.NewArray()
	defer in.Release()
	e, err := NewEncoder(st, false, "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Encode(memory.DefaultAllocator, in)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	s := avro.MustParse(js)
	type row struct {
		ID   *int64     `avro:"id"`
		Name string     `avro:"name"`
		At   *time.Time `avro:"at"`
	}
	var r0, r1 row
	if _, err := s.Decode(out.(*array.Binary).Value(0), &r0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decode(out.(*array.Binary).Value(1), &r1); err != nil {
		t.Fatal(err)
	}
	if *r0.ID != 3 || r0.Name != "x" || r0.At.UnixMicro() != 1_700_000_000_000_001 || r1.ID != nil || r1.Name != "y" || r1.At != nil {
		t.Fatalf("decoded %+v %+v", r0, r1)
	}
	// And from_avro reads to_avro's output back.
	d, _ := NewDecoder(js, Options{})
	back, _, err := d.Decode(memory.DefaultAllocator, out)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Release()
	if !array.Equal(back, in) {
		t.Fatalf("round trip:\n got %v\nwant %v", back, in)
	}
}
