package engine_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
)

// BenchmarkEventWindowsEngine measures the engine alone on scenario 1's
// query: JSON values from a memory stream (the bytes `atlas bench windows`
// produces to Kafka, in 64k-row records as the Kafka source hands them),
// from_json, a 10-minute watermark and a count per event per 5-minute
// window, appended to a memory sink. No broker, no Iceberg: events/s here is
// the ceiling the end-to-end run approaches. events/cpu-s divides by the
// process's CPU time, which other programs on the machine do not inflate.
// Per core:
//
//	GOMAXPROCS=1 go test -run '^$' -bench EventWindowsEngine -benchtime 3x ./atlas/internal/engine/
func BenchmarkEventWindowsEngine(b *testing.B) {
	const events = 1_000_000
	recs := eventValueRecords(b, events, 64<<10)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := engine.Builder().AppName("bench").Config(engine.ConfHome, b.TempDir()).GetOrCreate()
		ms, err := s.MemoryStream(fmt.Sprintf("events%d", i), "value binary")
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if err := ms.AddRecord(r); err != nil {
				b.Fatal(err)
			}
		}
		df := ms.ToDF().
			SelectExpr("CAST(value AS STRING) AS json").
			Select(engine.FromJSON(engine.Col("json"), "user_id string, event string, ts timestamp").Alias("data")).
			Select("data.*").
			WithWatermark("ts", "10 minutes").
			GroupBy(engine.Window(engine.Col("ts"), "5 minutes"), engine.Col("event")).
			Count()
		b.StartTimer()
		cpu0 := processCPU(b)
		q, err := df.WriteStream().OutputMode("append").Format("memory").QueryName(fmt.Sprintf("w%d", i)).
			Trigger(engine.AvailableNow()).Progress(false).Start()
		if err != nil {
			b.Fatal(err)
		}
		if err := q.AwaitTermination(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += processCPU(b) - cpu0
		if got := q.Totals().InputRows; got != events {
			b.Fatalf("input rows %d, want %d", got, events)
		}
		s.Stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	// The process's CPU time (user+system, every thread) does not grow
	// while other programs hold the cores, so on a shared machine this is
	// the steadier figure; with GOMAXPROCS=1 it is events per core-second.
	b.ReportMetric(float64(events)*float64(b.N)/cpu.Seconds(), "events/cpu-s")
}

// processCPU returns the user+system CPU time this process has used.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// eventValueRecords generates n events of `atlas bench windows`'s stream
// (seed 1, 4 hours, 10% out of order, 1% late) as records of one binary
// column "value" of at most rows rows each.
func eventValueRecords(tb testing.TB, n, rows int) []arrow.RecordBatch {
	g, err := produce.NewEventGenerator(produce.EventsConfig{Count: int64(n), Seed: 1, Span: 4 * time.Hour, OutOfOrder: 0.1, Late: 0.01})
	if err != nil {
		tb.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true}}, nil)
	var out []arrow.RecordBatch
	bld := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	defer bld.Release()
	flush := func() {
		col := bld.NewArray()
		out = append(out, array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len())))
		col.Release()
	}
	for rec, ok := g.Next(); ok; rec, ok = g.Next() {
		bld.Append(rec.Value)
		if bld.Len() == rows {
			flush()
		}
	}
	if bld.Len() > 0 {
		flush()
	}
	return out
}
