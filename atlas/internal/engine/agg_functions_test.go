package engine_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// aggInput is a batch of rows (k string, v bigint, x double, s string)
// with nulls, and the raw rows for references.
type aggRow struct {
	k    string
	v    int64
	vNil bool
	x    float64
	s    string
	sNil bool
}

func aggRows(n int, distinct int64, seed uint64) []aggRow {
	r := rand.New(rand.NewPCG(seed, 7))
	rows := make([]aggRow, n)
	for i := range rows {
		rows[i] = aggRow{
			k:    fmt.Sprintf("k%d", i%3),
			v:    r.Int64N(distinct),
			vNil: i%97 == 5,
			x:    r.NormFloat64()*10 + 100,
			s:    fmt.Sprintf("s%d", r.IntN(40)),
			sNil: i%11 == 0,
		}
	}
	return rows
}

var aggSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func aggRecord(rows []aggRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, aggSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.StringBuilder).Append(r.k)
		if r.vNil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int64Builder).Append(r.v)
		}
		b.Field(2).(*array.Float64Builder).Append(r.x)
		if r.sNil {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.StringBuilder).Append(r.s)
		}
	}
	return b.NewRecordBatch()
}

func rowsByKey(t *testing.T, df *engine.DataFrame) map[string]engine.Row {
	t.Helper()
	rows, err := df.Rows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]engine.Row{}
	for _, r := range rows {
		out[r["k"].(string)] = r
	}
	return out
}

// TestApproxCountDistinctError: HyperLogLog estimates of 100k values are
// within 3*rsd of the exact distinct count (a map over the raw rows), for
// Spark's default rsd and a coarse one; CountDistinct is exact.
func TestApproxCountDistinctError(t *testing.T) {
	s := engine.NewSession()
	rows := aggRows(100_000, 60_000, 1)
	rec := aggRecord(rows)
	defer rec.Release()
	exact := map[string]map[int64]bool{}
	for _, r := range rows {
		if r.vNil {
			continue
		}
		if exact[r.k] == nil {
			exact[r.k] = map[int64]bool{}
		}
		exact[r.k][r.v] = true
	}
	df := s.CreateDataFrame(aggSchema, []arrow.RecordBatch{rec})
	for _, rsd := range []float64{0.05, 0.2, 0.01} {
		got := rowsByKey(t, df.GroupBy("k").Agg(
			engine.ApproxCountDistinct(engine.Col("v"), rsd).Alias("approx"),
			engine.CountDistinct(engine.Col("v")).Alias("exact")))
		for k, set := range exact {
			want := float64(len(set))
			approx := float64(got[k]["approx"].(int64))
			rel := math.Abs(approx-want) / want
			t.Logf("rsd %v key %s: exact %v, approx_count_distinct %v, relative error %.4f", rsd, k, want, approx, rel)
			if rel > 3*rsd {
				t.Errorf("rsd %v key %s: approx_count_distinct %v, exact %v: relative error %.4f > 3*rsd", rsd, k, approx, want, rel)
			}
			if got[k]["exact"].(int64) != int64(len(set)) {
				t.Errorf("key %s: count(DISTINCT v) = %v, exact %d", k, got[k]["exact"], len(set))
			}
		}
	}
	// Spark's precision rule bounds rsd: p = ceil(2*log2(1.106/rsd)) >= 4.
	_, err := df.GroupBy("k").Agg(engine.ApproxCountDistinct(engine.Col("v"), 0.5)).Rows(t.Context())
	if err == nil || !strings.Contains(err.Error(), "at most 39%") {
		t.Errorf("rsd 0.5: err = %v, want Spark's 'at most 39%%' refusal", err)
	}
}

// TestPercentileApproxRankBound: each percentile_approx result is an
// input value whose rank in the sorted input is within n/accuracy of the
// exact rank ceil(p*n), as Spark's Greenwald-Khanna summary guarantees.
func TestPercentileApproxRankBound(t *testing.T) {
	s := engine.NewSession()
	rows := aggRows(100_000, 1_000_000, 2)
	rec := aggRecord(rows)
	defer rec.Release()
	df := s.CreateDataFrame(aggSchema, []arrow.RecordBatch{rec})
	pcts := []float64{0, 0.01, 0.25, 0.5, 0.9, 0.999, 1}
	for _, acc := range []int64{100, 1000, 10000} {
		got := rowsByKey(t, df.GroupBy("k").Agg(
			engine.PercentileApprox(engine.Col("v"), pcts, acc).Alias("p"),
			engine.PercentileApprox(engine.Col("x"), 0.5, acc).Alias("median_x")))
		for k, row := range got {
			var vs, xs []float64
			for _, r := range rows {
				if r.k == k {
					xs = append(xs, r.x)
					if !r.vNil {
						vs = append(vs, float64(r.v))
					}
				}
			}
			sort.Float64s(vs)
			sort.Float64s(xs)
			list := row["p"].([]any)
			for i, p := range pcts {
				checkRank(t, fmt.Sprintf("acc %d key %s p %v", acc, k, p), vs, float64(list[i].(int64)), p, acc)
			}
			checkRank(t, fmt.Sprintf("acc %d key %s median x", acc, k), xs, row["median_x"].(float64), 0.5, acc)
		}
	}
}

func checkRank(t *testing.T, what string, sorted []float64, v, p float64, acc int64) {
	t.Helper()
	lo, found := slices.BinarySearch(sorted, v)
	if !found {
		t.Errorf("%s: %v is not an input value", what, v)
		return
	}
	hi := lo
	for hi+1 < len(sorted) && sorted[hi+1] == v {
		hi++
	}
	n := float64(len(sorted))
	rank := math.Ceil(p * n) // 1-based target rank
	bound := n / float64(acc)
	if float64(hi+1) < rank-bound-1 || float64(lo+1) > rank+bound+1 {
		t.Errorf("%s: value %v has ranks %d..%d, target %v ± %v", what, v, lo+1, hi+1, rank, bound)
	}
}

// TestCollectFirstLastStddev checks collect_list (arrival order),
// collect_set, first/last with and without ignoreNulls, and the standard
// deviations and variances against a direct computation.
func TestCollectFirstLastStddev(t *testing.T) {
	s := engine.NewSession()
	rows := aggRows(2000, 50, 3)
	rows[0].sNil, rows[3].sNil = true, true // k0's and k0's first rows are null
	rec := aggRecord(rows)
	defer rec.Release()
	df := s.CreateDataFrame(aggSchema, []arrow.RecordBatch{rec})
	got := rowsByKey(t, df.GroupBy("k").Agg(
		engine.CollectList(engine.Col("s")).Alias("list"),
		engine.CollectSet(engine.Col("s")).Alias("set"),
		engine.First(engine.Col("s")).Alias("first"),
		engine.First(engine.Col("s"), true).Alias("first_nn"),
		engine.Last(engine.Col("v")).Alias("last"),
		engine.Last(engine.Col("s"), true).Alias("last_nn"),
		engine.Stddev(engine.Col("x")).Alias("sd"),
		engine.StddevPop(engine.Col("x")).Alias("sdp"),
		engine.Variance(engine.Col("x")).Alias("var"),
		engine.VarPop(engine.Col("x")).Alias("varp"),
	))
	for _, k := range []string{"k0", "k1", "k2"} {
		var list []any
		set := map[string]bool{}
		var first, firstNN, last, lastNN any
		seen := false
		var xs []float64
		for _, r := range rows {
			if r.k != k {
				continue
			}
			var sv any
			if !r.sNil {
				sv = r.s
				list = append(list, r.s)
				set[r.s] = true
				if firstNN == nil {
					firstNN = r.s
				}
				lastNN = r.s
			}
			if !seen {
				first, seen = sv, true
			}
			last = any(r.v)
			if r.vNil {
				last = nil
			}
			xs = append(xs, r.x)
		}
		row := got[k]
		if !reflect.DeepEqual(row["list"], list) {
			t.Errorf("%s: collect_list differs from the arrival order", k)
		}
		gotSet := map[string]bool{}
		for _, v := range row["set"].([]any) {
			if gotSet[v.(string)] {
				t.Errorf("%s: collect_set repeats %v", k, v)
			}
			gotSet[v.(string)] = true
		}
		if !reflect.DeepEqual(gotSet, set) {
			t.Errorf("%s: collect_set %v, want %v", k, gotSet, set)
		}
		for name, want := range map[string]any{"first": first, "first_nn": firstNN, "last": last, "last_nn": lastNN} {
			if row[name] != want {
				t.Errorf("%s: %s = %v, want %v", k, name, row[name], want)
			}
		}
		var mean float64
		for _, x := range xs {
			mean += x
		}
		mean /= float64(len(xs))
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		n := float64(len(xs))
		for name, want := range map[string]float64{"sd": math.Sqrt(ss / (n - 1)), "sdp": math.Sqrt(ss / n), "var": ss / (n - 1), "varp": ss / n} {
			if g := row[name].(float64); math.Abs(g-want) > 1e-9*math.Max(1, want) {
				t.Errorf("%s: %s = %v, want %v", k, name, g, want)
			}
		}
	}
	if k0 := got["k0"]; k0["first"] != nil {
		t.Errorf("first(s) of k0 = %v; its first row's s is null, so Spark's first without ignoreNulls is null", k0["first"])
	}
	// A sample statistic of one row is null (Spark 3+), the population one 0.
	one := aggRecord(rows[:1])
	defer one.Release()
	r1 := rowsByKey(t, s.CreateDataFrame(aggSchema, []arrow.RecordBatch{one}).GroupBy("k").Agg(
		engine.Stddev(engine.Col("x")).Alias("sd"), engine.StddevPop(engine.Col("x")).Alias("sdp")))
	if r1["k0"]["sd"] != nil || r1["k0"]["sdp"] != 0.0 {
		t.Errorf("one row: stddev %v (want null), stddev_pop %v (want 0)", r1["k0"]["sd"], r1["k0"]["sdp"])
	}
}

// TestSketchStateSurvivesRestart: a streaming aggregation with every
// sketch and collecting aggregate, stopped after two of four micro-batches
// and restarted from its checkpoint, ends with exactly the rows of an
// uninterrupted run over the same input; the exact aggregates also equal a
// batch aggregation of all rows.
func TestSketchStateSurvivesRestart(t *testing.T) {
	rows := aggRows(20_000, 3000, 4)
	chunks := [][]aggRow{rows[:5000], rows[5000:10000], rows[10000:15000], rows[15000:]}
	aggs := func(df *engine.DataFrame) *engine.DataFrame {
		return df.GroupBy("k").Agg(
			engine.ApproxCountDistinct(engine.Col("v")).Alias("hll"),
			engine.PercentileApprox(engine.Col("v"), []float64{0.1, 0.5, 0.9}, 100).Alias("pct"),
			engine.CollectList(engine.Col("s")).Alias("list"),
			engine.CollectSet(engine.Col("v")).Alias("set"),
			engine.First(engine.Col("s")).Alias("first"),
			engine.Last(engine.Col("s"), true).Alias("last"),
			engine.Stddev(engine.Col("x")).Alias("sd"),
		)
	}
	run := func(stopAfter int) map[string]engine.Row {
		s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
		defer s.Stop()
		ms, err := s.MemoryStream("ev", "k string, v bigint, x double, s string")
		if err != nil {
			t.Fatal(err)
		}
		ckpt := t.TempDir()
		var last map[string]engine.Row
		start := func() *engine.StreamingQuery {
			q, err := aggs(ms.ToDF()).WriteStream().OutputMode("complete").Progress(false).
				Option("checkpointLocation", ckpt).
				ForeachBatch(func(b *engine.DataFrame, id int64) error {
					rs, err := b.Rows(t.Context())
					if err != nil {
						return err
					}
					last = map[string]engine.Row{}
					for _, r := range rs {
						last[r["k"].(string)] = r
					}
					return nil
				}).Start()
			if err != nil {
				t.Fatal(err)
			}
			return q
		}
		q := start()
		for i, c := range chunks {
			if i == stopAfter {
				q.Stop()
				last = nil
				q = start()
			}
			rec := aggRecord(c)
			err := ms.AddRecord(rec)
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
			processAllAvailable(t, q)
		}
		q.Stop()
		return last
	}
	whole, restarted := run(-1), run(2)
	if !reflect.DeepEqual(whole, restarted) {
		for k := range whole {
			for c := range whole[k] {
				if !reflect.DeepEqual(whole[k][c], restarted[k][c]) {
					t.Errorf("key %s column %s: uninterrupted %v, restarted %v", k, c, whole[k][c], restarted[k][c])
				}
			}
		}
		t.FailNow()
	}
	rec := aggRecord(rows)
	defer rec.Release()
	batch := rowsByKey(t, aggs(engine.NewSession().CreateDataFrame(aggSchema, []arrow.RecordBatch{rec})))
	for k, r := range batch {
		for _, c := range []string{"list", "first", "last", "sd"} {
			if !reflect.DeepEqual(r[c], whole[k][c]) {
				t.Errorf("key %s column %s: stream %v, batch %v", k, c, whole[k][c], r[c])
			}
		}
		if len(r["set"].([]any)) != len(whole[k]["set"].([]any)) {
			t.Errorf("key %s: collect_set sizes differ", k)
		}
	}
}

// TestStreamingCountDistinctRefused: Spark refuses distinct aggregates on
// streams and points to approx_count_distinct; so does Start.
func TestStreamingCountDistinctRefused(t *testing.T) {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	defer s.Stop()
	ms, err := s.MemoryStream("ev", "k string, v bigint")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ms.ToDF().GroupBy("k").Agg(engine.CountDistinct(engine.Col("v"))).WriteStream().
		OutputMode("complete").Format("memory").QueryName("cd").Progress(false).Start()
	if err == nil || !strings.Contains(err.Error(), "distinct aggregations are not supported on streaming") || !strings.Contains(err.Error(), "ApproxCountDistinct") {
		t.Fatalf("Start: err = %v, want Spark's refusal naming approx_count_distinct", err)
	}
}
