package avrox

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/avro"
)

// BenchmarkFromAvroSingleObject decodes 10,000 single-object PaymentEvent
// records per iteration; rows/s is one core's rate.
func BenchmarkFromAvroSingleObject(b *testing.B) {
	s := avro.MustParse(paymentSchema)
	bb := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	const n = 10_000
	m := "shop"
	for i := 0; i < n; i++ {
		p := payment{"e", int64(i), float64(i), &m, time.UnixMilli(int64(i)).UTC(), "POS", []string{"a"}, 1, 2}
		v, _ := s.AppendSingleObject(nil, p.avroMap())
		bb.Append(v)
	}
	in := bb.NewArray()
	defer in.Release()
	d, err := NewDecoder(paymentSchema, Options{Permissive: true, Framing: SingleObject})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, st, err := d.Decode(memory.DefaultAllocator, in)
		if err != nil || st.Malformed+st.UnknownSchema != 0 {
			b.Fatal(err, st)
		}
		out.Release()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
