package jsonx

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchBatch is the number of records per Decode call, a typical micro-batch
// slice of a Kafka fetch.
const benchBatch = 4096

// benchDecode decodes a batch of records per iteration and reports
// records/s, MB/s (via SetBytes) and allocations per record.
func benchDecode(b *testing.B, schema string, record func(i int) string) {
	mem := memory.NewGoAllocator()
	d, err := NewDecoder(ddl(b, schema), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Release()
	bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	var size int64
	for i := 0; i < benchBatch; i++ {
		r := record(i)
		size += int64(len(r))
		bb.AppendString(r)
	}
	in := bb.NewBinaryArray()
	bb.Release()
	defer in.Release()

	b.SetBytes(size)
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0, cpuOK := threadCPU()
	b.ResetTimer()
	for b.Loop() {
		out, stats, err := d.Decode(in)
		if err != nil || stats.Malformed != 0 {
			b.Fatalf("Decode: %v, %+v", err, stats)
		}
		out.Release()
	}
	b.StopTimer()
	records := float64(b.N) * benchBatch
	b.ReportMetric(records/b.Elapsed().Seconds(), "records/s")
	if cpu1, ok := threadCPU(); ok && cpuOK && cpu1 > cpu0 {
		// Throughput per second of this thread's CPU time: per busy core,
		// whatever else the machine runs.
		b.ReportMetric(records/(cpu1-cpu0).Seconds(), "records/cpu-s")
	}
	b.ReportMetric(float64(size)/benchBatch, "B/record")
	allocs := testing.AllocsPerRun(3, func() {
		out, _, _ := d.Decode(in)
		out.Release()
	})
	b.ReportMetric(allocs/benchBatch, "allocs/record")
}

func BenchmarkDecodeEvents(b *testing.B) {
	events := []string{"click", "view", "purchase", "scroll"}
	benchDecode(b, "user_id string, event string, ts timestamp", func(i int) string {
		return fmt.Sprintf(`{"user_id":"u%d","event":"%s","ts":"2026-11-30T10:%02d:%02d.%03dZ"}`,
			i%1000, events[i%len(events)], i/60%60, i%60, i%1000)
	})
}

func BenchmarkDecodeCDC(b *testing.B) {
	benchDecode(b, "invoice string, stock_code string, quantity int, price double, CustomerID double, Country string", func(i int) string {
		return fmt.Sprintf(`{"invoice":"%d","stock_code":"85123A","quantity":%d,"price":%d.%02d,"CustomerID":%d.0,"Country":"United Kingdom"}`,
			536365+i, i%50+1, i%10, i%100, 17850+i%300)
	})
}
