package e2e_test

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// The first lab of the course chapter (004, "First stream: the built-in
// rate source"), cell for cell:
//
//	.withColumn("district", F.element_at(F.array(*[F.lit(d) for d in
//	        ["Gasabo", "Huye", "Musanze", "Rubavu"]]), (F.col("value") % 4 + 1).cast("int")))
//	.withWatermark("timestamp", "30 seconds")
//	.groupBy(F.window("timestamp", "10 seconds"), "district").count()
//
// in update mode over a memory stream shaped as the rate source
// (timestamp, value). Every update batch carries a group's running count;
// the last count seen per group must equal a brute-force count of the raw
// rows, with the district computed by Go indexing.
func TestDistrictLabBuildsNamesWithElementAtAndArray(t *testing.T) {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("rate", "timestamp timestamp, value bigint")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"Gasabo", "Huye", "Musanze", "Rubavu"}
	lits := make([]engine.Column, len(names))
	for i, d := range names {
		lits[i] = engine.Lit(d)
	}
	counts := ms.ToDF().
		WithColumn("district", engine.ElementAt(engine.Array(lits...), engine.Col("value").Mod(4).Plus(1).Cast("int"))).
		WithWatermark("timestamp", "30 seconds").
		GroupBy(engine.Window(engine.Col("timestamp"), "10 seconds"), "district").
		Count()

	type key struct {
		start    time.Time
		district string
	}
	got := map[key]int64{}
	q, err := counts.WriteStream().OutputMode("update").Progress(false).
		Option("checkpointLocation", t.TempDir()).
		ForeachBatch(func(b *engine.DataFrame, id int64) error {
			rows, err := b.Rows(t.Context())
			if err != nil {
				return err
			}
			for _, r := range rows {
				w := r["window"].(engine.Row)
				got[key{w["start"].(time.Time), r["district"].(string)}] = r["count"].(int64)
			}
			return nil
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()

	// 50 rows per second for 12 seconds, in 3 micro-batches, as the rate
	// source with rowsPerSecond=50 produces them.
	base := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	want := map[key]int64{}
	value := int64(0)
	for batch := 0; batch < 3; batch++ {
		var rows [][]any
		for i := 0; i < 200; i++ {
			ts := base.Add(time.Duration(value) * 20 * time.Millisecond)
			rows = append(rows, []any{ts, value})
			want[key{ts.Truncate(10 * time.Second), names[value%4]}]++
			value++
		}
		if err := ms.AddRows(rows...); err != nil {
			t.Fatal(err)
		}
		if err := q.ProcessAllAvailable(); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d groups, brute force %d:\n%v\n%v", len(got), len(want), got, want)
	}
	var lines []string
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s %s: count %d, brute force %d", k.start.Format(time.TimeOnly), k.district, got[k], n)
		}
		lines = append(lines, fmt.Sprint(k.start.Format(time.TimeOnly), k.district, n))
	}
	sort.Strings(lines)
	t.Log(lines)
}

// The same cell over the real rate source (rowsPerSecond 200): every row
// the source produced is counted in exactly one (window, district) group,
// so the last counts emitted in update mode add up to the input rows the
// query's progress reports, and every district is one of the four names.
func TestDistrictLabOverTheRateSource(t *testing.T) {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	names := []string{"Gasabo", "Huye", "Musanze", "Rubavu"}
	lits := make([]engine.Column, len(names))
	for i, d := range names {
		lits[i] = engine.Lit(d)
	}
	stream := s.ReadStream().Format("rate").Option("rowsPerSecond", "200").Load()
	counts := stream.
		WithColumn("district", engine.ElementAt(engine.Array(lits...), engine.Col("value").Mod(4).Plus(1).Cast("int"))).
		WithWatermark("timestamp", "30 seconds").
		GroupBy(engine.Window(engine.Col("timestamp"), "10 seconds"), "district").
		Count()
	type key struct {
		start    time.Time
		district string
	}
	latest := map[key]int64{}
	q, err := counts.WriteStream().OutputMode("update").Progress(false).
		Option("checkpointLocation", t.TempDir()).
		ForeachBatch(func(b *engine.DataFrame, id int64) error {
			rows, err := b.Rows(t.Context())
			if err != nil {
				return err
			}
			for _, r := range rows {
				latest[key{r["window"].(engine.Row)["start"].(time.Time), r["district"].(string)}] = r["count"].(int64)
			}
			return nil
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	deadline := time.Now().Add(10 * time.Second)
	var input int64
	for input < 300 && time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		if err := q.ProcessAllAvailable(); err != nil {
			t.Fatal(err)
		}
		input = 0
		for _, p := range q.RecentProgress() {
			input += p.NumInputRows
		}
	}
	q.Stop()
	var sum int64
	for k, n := range latest {
		if !slices.Contains(names, k.district) {
			t.Errorf("district %q is not one of %v", k.district, names)
		}
		sum += n
	}
	if input < 300 || sum != input {
		t.Fatalf("counts add up to %d, the source produced %d input rows (want >= 300 and equal)", sum, input)
	}
}
