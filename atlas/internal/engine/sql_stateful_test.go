package engine_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestSQLSessionWindowDocExamples runs Spark's session_window SQL
// examples verbatim (over a temp view instead of VALUES) and expects
// their documented output.
func TestSQLSessionWindowDocExamples(t *testing.T) {
	s := engine.NewSession()
	if err := abFrame(t, s, [][2]string{{"A1", "00:00:00"}, {"A1", "00:04:30"}, {"A1", "00:10:00"}, {"A2", "00:01:00"}, {"A2", "00:04:30"}}).CreateOrReplaceTempView("tab"); err != nil {
		t.Fatal(err)
	}
	run := func(q string) []string {
		t.Helper()
		df, err := s.SQL(q)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := df.Rows(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprintf("%v %s %s %v", r["a"], r["start"].(time.Time).Format("15:04:05"), r["end"].(time.Time).Format("15:04:05"), r["cnt"]))
		}
		return out
	}
	got := run("SELECT a, session_window.start, session_window.end, count(*) as cnt FROM tab WHERE a = 'A1' OR b < '2021-01-01 00:04:00' GROUP by a, session_window(b, '5 minutes') ORDER BY a, start")
	want := []string{"A1 00:00:00 00:09:30 2", "A1 00:10:00 00:15:00 1", "A2 00:01:00 00:06:00 1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("static gap: %v, want %v", got, want)
	}
	got = run("SELECT a, session_window.start, session_window.end, count(*) as cnt FROM tab GROUP by a, session_window(b, CASE WHEN a = 'A1' THEN '5 minutes' WHEN a = 'A2' THEN '1 minute' ELSE '10 minutes' END) ORDER BY a, start")
	want = []string{"A1 00:00:00 00:09:30 2", "A1 00:10:00 00:15:00 1", "A2 00:01:00 00:02:00 1", "A2 00:04:30 00:05:30 1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("dynamic gap: %v, want %v", got, want)
	}
}

// TestSQLAggregateFunctions: the SQL forms of the new aggregates equal
// the DataFrame forms and the Go references.
func TestSQLAggregateFunctions(t *testing.T) {
	s := engine.NewSession()
	rows := aggRows(5000, 300, 8)
	rec := aggRecord(rows)
	defer rec.Release()
	if err := s.CreateDataFrame(aggSchema, []arrow.RecordBatch{rec}).CreateOrReplaceTempView("t"); err != nil {
		t.Fatal(err)
	}
	df, err := s.SQL(`SELECT k, count(DISTINCT v), approx_count_distinct(v, 0.01) AS hll, percentile_approx(v, array(0.5, 0.9), 100) AS p,
		first(s, true) AS f, last(s) AS l, stddev(x) AS sd, collect_set(k) AS ks FROM t GROUP BY k ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	if cols := strings.Join(df.Columns(), ","); cols != "k,count(DISTINCT v),hll,p,f,l,sd,ks" {
		t.Fatalf("columns %s", cols)
	}
	got, err := df.Rows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		k := r["k"].(string)
		set := map[int64]bool{}
		var vs []float64
		var first, last any
		for _, x := range rows {
			if x.k != k {
				continue
			}
			if !x.vNil {
				set[x.v] = true
				vs = append(vs, float64(x.v))
			}
			if !x.sNil && first == nil {
				first = x.s
			}
			last = x.s
			if x.sNil {
				last = nil
			}
		}
		sort.Float64s(vs)
		if r["count(DISTINCT v)"] != int64(len(set)) {
			t.Errorf("%s: count(DISTINCT v) %v, want %d", k, r["count(DISTINCT v)"], len(set))
		}
		if h := float64(r["hll"].(int64)); h < float64(len(set))*0.97 || h > float64(len(set))*1.03 {
			t.Errorf("%s: approx_count_distinct %v, exact %d", k, h, len(set))
		}
		p := r["p"].([]any)
		checkRank(t, k+" p50", vs, float64(p[0].(int64)), 0.5, 100)
		checkRank(t, k+" p90", vs, float64(p[1].(int64)), 0.9, 100)
		if r["f"] != first || r["l"] != last {
			t.Errorf("%s: first %v last %v, want %v %v", k, r["f"], r["l"], first, last)
		}
		if ks := r["ks"].([]any); len(ks) != 1 || ks[0] != k {
			t.Errorf("%s: collect_set(k) %v", k, ks)
		}
	}
	if _, err := s.SQL("SELECT sum(DISTINCT v) FROM t"); err == nil || !strings.Contains(err.Error(), "only count(DISTINCT") {
		t.Errorf("sum(DISTINCT v): %v", err)
	}
}
