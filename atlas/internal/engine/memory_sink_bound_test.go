package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// memoryValues returns column v of the memory table name, in order.
func memoryValues(t *testing.T, s *engine.Session, name string) []int64 {
	t.Helper()
	_, recs, err := s.Table(name).Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, r := range recs {
		col := r.Column(0).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			out = append(out, col.Value(i))
		}
	}
	return out
}

// TestMemorySinkKeepsAtMostMaxRows: with atlas.memory.maxRows = 25, a
// memory sink fed 4 batches of 10 rows keeps the newest 25 values, in
// order (the oldest batch whole and half of the second dropped); its
// progress says how many rows it keeps and dropped; 0 keeps every row, as
// Spark's memory sink; a bad value is refused at Start naming the setting.
func TestMemorySinkKeepsAtMostMaxRows(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	run := func(name string) (*engine.StreamingQuery, []int64) {
		t.Helper()
		ms, err := s.MemoryStream("src_"+name, "v bigint")
		if err != nil {
			t.Fatal(err)
		}
		q, err := ms.ToDF().WriteStream().Format("memory").QueryName(name).Progress(false).Start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = q.Stop() })
		var want []int64
		for b := range int64(4) {
			var rows [][]any
			for i := range int64(10) {
				rows = append(rows, []any{b*10 + i})
				want = append(want, b*10+i)
			}
			if err := ms.AddRows(rows...); err != nil {
				t.Fatal(err)
			}
			if err := q.ProcessAllAvailable(); err != nil {
				t.Fatal(err)
			}
		}
		return q, want
	}
	s.SetConf(engine.ConfMemoryMaxRows, "25")
	q, all := run("bounded")
	if got, want := memoryValues(t, s, "bounded"), all[len(all)-25:]; !equalInts(got, want) {
		t.Fatalf("bounded memory table holds %v, want the newest 25 values %v", got, want)
	}
	m := q.LastProgress().Sink.Metrics
	if m["numRows"] != "25" || m["numRowsDropped"] != "15" || m["maxRows"] != "25" {
		t.Fatalf("progress sink metrics %v, want numRows 25, numRowsDropped 15, maxRows 25", m)
	}
	_ = q.Stop()

	s.SetConf(engine.ConfMemoryMaxRows, "0")
	q, all = run("unbounded")
	if got := memoryValues(t, s, "unbounded"); !equalInts(got, all) {
		t.Fatalf("memory table without a bound holds %v, want every value %v", got, all)
	}
	_ = q.Stop()

	s.SetConf(engine.ConfMemoryMaxRows, "-3")
	ms, err := s.MemoryStream("src_bad", "v bigint")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ms.ToDF().WriteStream().Format("memory").QueryName("bad").Progress(false).Start(); err == nil || !strings.Contains(err.Error(), "atlas.memory.maxRows") {
		t.Fatalf("start with maxRows -3: %v, want a refusal naming atlas.memory.maxRows", err)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
