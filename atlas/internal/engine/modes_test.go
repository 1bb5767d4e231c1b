package engine_test

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// genBatches makes rows (event, ts) for several micro-batches, with event
// time moving forward and some rows far behind.
func genBatches(seed int64, batches, perBatch int) [][][]any {
	r := rand.New(rand.NewSource(seed))
	base := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	events := []string{"click", "view", "buy"}
	var out [][][]any
	for b := 0; b < batches; b++ {
		var rows [][]any
		for i := 0; i < perBatch; i++ {
			ts := base.Add(time.Duration(b)*7*time.Minute + time.Duration(r.Intn(7*60))*time.Second)
			if r.Intn(10) == 0 {
				ts = ts.Add(-25 * time.Minute)
			}
			rows = append(rows, []any{events[r.Intn(len(events))], ts})
		}
		out = append(out, rows)
	}
	return out
}

type wkey struct {
	event string
	start time.Time
}

// modeReference applies Spark's rules per batch; it returns, per batch,
// the rows each output mode emits.
func modeReference(batches [][][]any) (appendOut, updateOut, completeOut []map[wkey]int64) {
	const size = 5 * time.Minute
	state := map[wkey]int64{} // append/update state (evicted)
	all := map[wkey]int64{}   // complete state (never evicted, nothing dropped)
	wm := time.UnixMilli(0)
	run := func(rows [][]any) {
		updated := map[wkey]bool{}
		var maxTS time.Time
		for _, row := range rows {
			ts := row[1].(time.Time)
			k := wkey{row[0].(string), ts.Truncate(size)}
			all[k]++
			if ts.After(maxTS) {
				maxTS = ts
			}
			if !k.start.Add(size).After(wm) {
				continue // late
			}
			state[k]++
			updated[k] = true
		}
		ap, up, co := map[wkey]int64{}, map[wkey]int64{}, map[wkey]int64{}
		for k := range updated {
			up[k] = state[k]
		}
		for k, n := range state {
			if !k.start.Add(size).After(wm) {
				ap[k] = n
				delete(state, k)
			}
		}
		for k, n := range all {
			co[k] = n
		}
		appendOut, updateOut, completeOut = append(appendOut, ap), append(updateOut, up), append(completeOut, co)
		if !maxTS.IsZero() {
			if next := maxTS.Add(-10 * time.Minute); next.After(wm) {
				wm = next
			}
		}
	}
	for _, b := range batches {
		run(b)
	}
	// a final no-data batch at the last watermark
	run(nil)
	return
}

func TestOutputModesMatchReference(t *testing.T) {
	batches := genBatches(3, 6, 400)
	wantAppend, wantUpdate, wantComplete := modeReference(batches)
	for _, mode := range []string{"append", "update", "complete"} {
		t.Run(mode, func(t *testing.T) {
			s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
			ms, err := s.MemoryStream("ev", "event string, ts timestamp")
			if err != nil {
				t.Fatal(err)
			}
			counts := ms.ToDF().WithWatermark("ts", "10 minutes").
				GroupBy(engine.Window(engine.Col("ts"), "5 minutes"), engine.Col("event")).Count()
			got := map[int64]map[wkey]int64{}
			q, err := counts.WriteStream().OutputMode(mode).Progress(false).
				Option("checkpointLocation", t.TempDir()).
				ForeachBatch(func(b *engine.DataFrame, id int64) error {
					rows, err := b.Rows(t.Context())
					if err != nil {
						return err
					}
					m := map[wkey]int64{}
					for _, r := range rows {
						w := r["window"].(engine.Row)
						k := wkey{r["event"].(string), w["start"].(time.Time)}
						if _, dup := m[k]; dup {
							return fmt.Errorf("batch %d emitted %v twice", id, k)
						}
						m[k] = r["count"].(int64)
					}
					got[id] = m
					return nil
				}).Start()
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range batches {
				if err := ms.AddRows(b...); err != nil {
					t.Fatal(err)
				}
				if err := q.ProcessAllAvailable(); err != nil {
					t.Fatal(err)
				}
			}
			q.Stop()
			var ids []int64
			for id := range got {
				ids = append(ids, id)
			}
			sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
			var gotSeq []map[wkey]int64
			for _, id := range ids {
				if len(got[id]) > 0 {
					gotSeq = append(gotSeq, got[id])
				}
			}
			switch mode {
			case "append":
				// A no-data batch may close windows before the next data
				// batch does: compare the union, each window exactly once.
				diffMap(t, "append", union(t, gotSeq), union(t, wantAppend))
			case "update":
				want := nonEmpty(wantUpdate)
				if len(gotSeq) != len(want) {
					t.Fatalf("update: %d non-empty batches, reference %d", len(gotSeq), len(want))
				}
				for i := range want {
					diffMap(t, fmt.Sprintf("update batch #%d", i), gotSeq[i], want[i])
				}
			case "complete":
				diffMap(t, "complete", gotSeq[len(gotSeq)-1], wantComplete[len(wantComplete)-1])
			}
		})
	}
}

func union(t *testing.T, seq []map[wkey]int64) map[wkey]int64 {
	out := map[wkey]int64{}
	for _, m := range seq {
		for k, n := range m {
			if _, dup := out[k]; dup {
				t.Fatalf("window %v emitted twice", k)
			}
			out[k] = n
		}
	}
	return out
}

func nonEmpty(seq []map[wkey]int64) []map[wkey]int64 {
	var out []map[wkey]int64
	for _, m := range seq {
		if len(m) > 0 {
			out = append(out, m)
		}
	}
	return out
}

func diffMap(t *testing.T, what string, got, want map[wkey]int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, reference %d", what, len(got), len(want))
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("%s: %v = %d, reference %d", what, k, got[k], n)
		}
	}
}
