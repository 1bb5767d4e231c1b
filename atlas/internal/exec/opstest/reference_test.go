package opstest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// The references: Spark's rules applied to the raw records, batch by
// batch. Batch i reads file i of every source. After batch i each source's
// watermark is its largest event time so far minus its delay (0 before its
// first row), the query's is the smallest of them, never going back; batch
// i evicts with the query's watermark after batch i-1 (M(i)) and drops as
// late the rows at or below the one after batch i-2 (M(i-1), SPARK-40925).
// A final batch without data evicts with the last watermark.

// watermarks returns M(0..n): M[i] is batch i's watermark (ms).
func watermarks(sources [][][]event, delays []time.Duration) []int64 {
	n := len(sources[0])
	m := make([]int64, n+1)
	maxT := make([]int64, len(sources))
	seen := make([]bool, len(sources))
	g := int64(0)
	for i := 0; i < n; i++ {
		m[i] = g
		for s, files := range sources {
			for _, e := range files[i] {
				if ms := e.ts.UnixMilli(); !seen[s] || ms > maxT[s] {
					maxT[s], seen[s] = ms, true
				}
			}
		}
		w := int64(1<<62 - 1)
		for s := range sources {
			v := int64(0)
			if seen[s] {
				v = maxT[s] - delays[s].Milliseconds()
			}
			w = min(w, v)
		}
		g = max(g, w)
	}
	m[n] = g
	return m
}

// lateAt is the watermark for late rows of batch i.
func lateAt(m []int64, i int) int64 {
	if i < 1 {
		return 0
	}
	return m[i-1]
}

func minuteEnd(t time.Time) time.Time { return t.Truncate(time.Minute).Add(time.Minute) }

func span(start, end time.Time) string { return start.Format("15:04") + "-" + end.Format("15:04") }

// spread makes n events of keys in [from, from+width), shuffled.
func spread(rng *rand.Rand, n int, keys []string, from time.Time, width time.Duration) []event {
	out := make([]event, n)
	for i := range out {
		out[i] = event{k: keys[rng.IntN(len(keys))], ts: from.Add(time.Duration(rng.Int64N(int64(width/time.Second))) * time.Second)}
	}
	return out
}

var keys = []string{"k0", "k1", "k2", "k3"}

// windowedFiles are files of 3 minutes of events each, with stragglers
// up to 7 minutes older (some of them late), and a last file whose one
// row, a day later, closes every window.
func windowedFiles(rng *rand.Rand, offset time.Duration) [][]event {
	var files [][]event
	for i := 0; i < 12; i++ {
		from := base.Add(offset + time.Duration(i)*3*time.Minute)
		f := spread(rng, 40, keys, from, 3*time.Minute)
		if i >= 2 {
			f = append(f, spread(rng, 4, keys, from.Add(-7*time.Minute), 6*time.Minute)...)
		}
		rng.Shuffle(len(f), func(a, b int) { f[a], f[b] = f[b], f[a] })
		files = append(files, f)
	}
	return append(files, []event{{k: "zz", ts: base.Add(24 * time.Hour)}})
}

// minuteCounts counts the rows not dropped as late per (key, minute
// window end), over every source.
func minuteCounts(sources [][][]event, m []int64) map[string]map[time.Time]int {
	counts := map[string]map[time.Time]int{}
	for _, files := range sources {
		for i, f := range files {
			for _, e := range f {
				end := minuteEnd(e.ts)
				if end.UnixMilli() <= lateAt(m, i) {
					continue // late: its window was closed
				}
				if counts[e.k] == nil {
					counts[e.k] = map[time.Time]int{}
				}
				counts[e.k][end]++
			}
		}
	}
	return counts
}

// chainedInputs: per-minute counts, then per 5 minutes over
// window_time(window) (a minute window's end minus 1µs) the sum of the
// counts and the number of minute windows.
func chainedInputs(t *testing.T, dir string, rng *rand.Rand) []string {
	files := windowedFiles(rng, 0)
	writeFiles(t, filepath.Join(dir, "a"), "k", "ts", files)
	m := watermarks([][][]event{files}, []time.Duration{2 * time.Minute})
	type agg struct{ events, minutes int }
	five := map[string]*agg{}
	for k, ends := range minuteCounts([][][]event{files}, m) {
		for end, n := range ends {
			wt := end.Add(-time.Microsecond)
			start := wt.Truncate(5 * time.Minute)
			if start.Add(5*time.Minute).UnixMilli() > m[len(m)-1] {
				continue // not closed by the last watermark
			}
			key := fmt.Sprintf("%s %s", span(start, start.Add(5*time.Minute)), k)
			if five[key] == nil {
				five[key] = &agg{}
			}
			five[key].events += n
			five[key].minutes++
		}
	}
	var want []string
	for key, a := range five {
		want = append(want, fmt.Sprintf("%s events=%d minutes=%d", key, a.events, a.minutes))
	}
	sort.Strings(want)
	return want
}

// dedupInputs: dropDuplicates("id") without a watermark, then a
// watermark (2 minutes), then counts per minute window and key, as the
// fraud pipeline runs. From file 1 on, each file resends 3 earlier events
// as they were and one with its event time moved 30 minutes on (a
// corrected timestamp). The deduplication drops every resend, and the
// watermark above it sees only the rows it kept (Spark's
// EventTimeWatermarkExec over StreamingDeduplicateExec): a moved resend
// does not move the watermark, which would make the next files late.
func dedupInputs(t *testing.T, dir string, rng *rand.Rand) []string {
	files := windowedFiles(rng, 0)
	var sent []event
	for i, f := range files {
		for j := range f {
			f[j].id = fmt.Sprintf("e%02d-%03d", i, j)
		}
		if i >= 1 && i < len(files)-1 {
			for r := 0; r < 3; r++ {
				f = append(f, sent[rng.IntN(len(sent))])
			}
			moved := sent[rng.IntN(len(sent))]
			moved.ts = moved.ts.Add(30 * time.Minute)
			f = append(f, moved)
			rng.Shuffle(len(f), func(a, b int) { f[a], f[b] = f[b], f[a] })
			files[i] = f
		}
		sent = append(sent, f...)
	}
	writeFiles(t, filepath.Join(dir, "a"), "k", "ts", files)
	seen := map[string]bool{}
	kept := make([][]event, len(files))
	for i, f := range files {
		for _, e := range f {
			if !seen[e.id] {
				seen[e.id] = true
				kept[i] = append(kept[i], e)
			}
		}
	}
	m := watermarks([][][]event{kept}, []time.Duration{2 * time.Minute})
	var want []string
	for k, ends := range minuteCounts([][][]event{kept}, m) {
		for end, n := range ends {
			if end.UnixMilli() <= m[len(m)-1] {
				want = append(want, fmt.Sprintf("%s %s %d", span(end.Add(-time.Minute), end), k, n))
			}
		}
	}
	sort.Strings(want)
	return want
}

// dedupWatermarkInputs: a watermark (2 minutes), then dropDuplicates on
// the id and the event time (Spark's StreamingDeduplicateExec with the
// event time among the keys), then counts per minute window and key. From
// file 1 on, each file resends 3 earlier events as they were. The
// watermark sees every row (it is below the deduplication); the
// deduplication drops rows at or below its watermark for late rows, and
// the first copy of each (id, event time) is counted once: a resend whose
// key was evicted is late by then.
func dedupWatermarkInputs(t *testing.T, dir string, rng *rand.Rand) []string {
	files := windowedFiles(rng, 0)
	var sent []event
	for i, f := range files {
		for j := range f {
			f[j].id = fmt.Sprintf("e%02d-%03d", i, j)
		}
		if i >= 1 && i < len(files)-1 {
			for r := 0; r < 3; r++ {
				f = append(f, sent[rng.IntN(len(sent))])
			}
			rng.Shuffle(len(f), func(a, b int) { f[a], f[b] = f[b], f[a] })
			files[i] = f
		}
		sent = append(sent, f...)
	}
	writeFiles(t, filepath.Join(dir, "a"), "k", "ts", files)
	m := watermarks([][][]event{files}, []time.Duration{2 * time.Minute})
	seen := map[string]bool{}
	counts := map[string]map[time.Time]int{}
	for i, f := range files {
		for _, e := range f {
			key := e.id + e.ts.String()
			if e.ts.UnixMilli() <= lateAt(m, i) || seen[key] {
				continue
			}
			seen[key] = true
			if counts[e.k] == nil {
				counts[e.k] = map[time.Time]int{}
			}
			counts[e.k][minuteEnd(e.ts)]++
		}
	}
	var want []string
	for k, ends := range counts {
		for end, n := range ends {
			if end.UnixMilli() <= m[len(m)-1] {
				want = append(want, fmt.Sprintf("%s %s %d", span(end.Add(-time.Minute), end), k, n))
			}
		}
	}
	sort.Strings(want)
	return want
}

// unionInputs: a union of two streams (watermark delays 2 and 4 minutes),
// counted per minute window and key.
func unionInputs(t *testing.T, dir string, rng *rand.Rand) []string {
	a := windowedFiles(rng, 0)
	b := windowedFiles(rng, 40*time.Second)
	writeFiles(t, filepath.Join(dir, "a"), "k", "ts", a)
	writeFiles(t, filepath.Join(dir, "b"), "k", "ts", b)
	sources := [][][]event{a, b}
	m := watermarks(sources, []time.Duration{2 * time.Minute, 4 * time.Minute})
	var want []string
	for k, ends := range minuteCounts(sources, m) {
		for end, n := range ends {
			if end.UnixMilli() <= m[len(m)-1] {
				want = append(want, fmt.Sprintf("%s %s %d", span(end.Add(-time.Minute), end), k, n))
			}
		}
	}
	sort.Strings(want)
	return want
}

// unionWatermarkInputs: the union's two streams with one watermark (2
// minutes) set on the union, counted per minute window and key: the
// watermark operator sees the rows of both, so the query's watermark is
// the largest event time of either minus the delay.
func unionWatermarkInputs(t *testing.T, dir string, rng *rand.Rand) []string {
	a := windowedFiles(rng, 0)
	b := windowedFiles(rng, 40*time.Second)
	writeFiles(t, filepath.Join(dir, "a"), "k", "ts", a)
	writeFiles(t, filepath.Join(dir, "b"), "k", "ts", b)
	both := make([][]event, len(a))
	for i := range a {
		both[i] = append(append([]event{}, a[i]...), b[i]...)
	}
	m := watermarks([][][]event{both}, []time.Duration{2 * time.Minute})
	var want []string
	for k, ends := range minuteCounts([][][]event{both}, m) {
		for end, n := range ends {
			if end.UnixMilli() <= m[len(m)-1] {
				want = append(want, fmt.Sprintf("%s %s %d", span(end.Add(-time.Minute), end), k, n))
			}
		}
	}
	sort.Strings(want)
	return want
}

// staticInputs: a stream joined with a static table of regions on the key
// (inner: k3 has no region and is left out), then counted per minute
// window and region.
func staticInputs(t *testing.T, dir string, rng *rand.Rand) []string {
	files := windowedFiles(rng, 0)
	writeFiles(t, filepath.Join(dir, "a"), "k", "ts", files)
	region := map[string]string{"k0": "north", "k1": "north", "k2": "south"}
	if err := os.MkdirAll(filepath.Join(dir, "static"), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, k := range []string{"k0", "k1", "k2"} {
		fmt.Fprintf(&b, "{\"k\": %q, \"region\": %q}\n", k, region[k])
	}
	if err := os.WriteFile(filepath.Join(dir, "static", "regions.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	m := watermarks([][][]event{files}, []time.Duration{2 * time.Minute})
	counts := map[string]int{}
	for k, ends := range minuteCounts([][][]event{files}, m) {
		for end, n := range ends {
			if r, ok := region[k]; ok && end.UnixMilli() <= m[len(m)-1] {
				counts[fmt.Sprintf("%s %s", span(end.Add(-time.Minute), end), r)] += n
			}
		}
	}
	var want []string
	for key, n := range counts {
		want = append(want, fmt.Sprintf("%s %d", key, n))
	}
	sort.Strings(want)
	return want
}

// aggJoinInputs: two streams (watermarks 2 minutes each) counted per
// minute window and key, the counts joined on window and key (Spark 3.4+,
// append mode). Each aggregation drops late rows and closes windows by the
// query's watermark (the smaller of the two), so a window closed on both
// sides by the last watermark is joined once, with both counts.
func aggJoinInputs(t *testing.T, dir string, rng *rand.Rand) []string {
	a := windowedFiles(rng, 0)
	b := windowedFiles(rng, 40*time.Second)
	writeFiles(t, filepath.Join(dir, "a"), "k", "ts", a)
	writeFiles(t, filepath.Join(dir, "b"), "k", "ts", b)
	m := watermarks([][][]event{a, b}, []time.Duration{2 * time.Minute, 2 * time.Minute})
	ca := minuteCounts([][][]event{a}, m)
	cb := minuteCounts([][][]event{b}, m)
	var want []string
	for k, ends := range ca {
		for end, n := range ends {
			if nb, ok := cb[k][end]; ok && end.UnixMilli() <= m[len(m)-1] {
				want = append(want, fmt.Sprintf("%s %s a=%d b=%d", span(end.Add(-time.Minute), end), k, n, nb))
			}
		}
	}
	sort.Strings(want)
	return want
}

// joinInputs: impressions joined with clicks on the ad and clickTime
// between impressionTime and impressionTime + 1 hour (both watermarks 30
// minutes), then counted per 15-minute window of clickTime (joinagg) or
// deduplicated on the ad (joindedup). Every row arrives in the file of its
// event time, so none is late; a last file a day later closes everything.
func joinInputs(mode string) func(t *testing.T, dir string, rng *rand.Rand) []string {
	return func(t *testing.T, dir string, rng *rand.Rand) []string {
		const n = 14
		imps, clks := make([][]event, n+1), make([][]event, n+1)
		fileOf := func(ts time.Time) int { return int(ts.Sub(base) / (10 * time.Minute)) }
		var allImp, allClk []event
		for i := 0; i < n; i++ {
			for j := 0; j < 6; j++ {
				imp := event{k: fmt.Sprintf("a%02d%d", i, j), ts: base.Add(time.Duration(i)*10*time.Minute + time.Duration(rng.IntN(600))*time.Second)}
				imps[i] = append(imps[i], imp)
				allImp = append(allImp, imp)
				if rng.IntN(10) < 6 {
					for c := 0; c < 1+rng.IntN(3); c++ {
						clk := event{k: imp.k, ts: imp.ts.Add(time.Duration(rng.IntN(70*60)) * time.Second)}
						if f := fileOf(clk.ts); f < n {
							clks[f] = append(clks[f], clk)
							allClk = append(allClk, clk)
						}
					}
				}
			}
			clks[i] = append(clks[i], event{k: "nobody", ts: base.Add(time.Duration(i)*10*time.Minute + time.Minute)})
		}
		imps[n] = []event{{k: "zz1", ts: base.Add(48 * time.Hour)}}
		clks[n] = []event{{k: "zz2", ts: base.Add(48 * time.Hour)}}
		for _, f := range append(imps, clks...) {
			rng.Shuffle(len(f), func(a, b int) { f[a], f[b] = f[b], f[a] })
		}
		writeFiles(t, filepath.Join(dir, "imp"), "adId", "impressionTime", imps)
		writeFiles(t, filepath.Join(dir, "clk"), "clickAdId", "clickTime", clks)
		m := watermarks([][][]event{imps, clks}, []time.Duration{30 * time.Minute, 30 * time.Minute})
		// The join's output watermark: the impressions' state watermark
		// (W - 1 hour - 1 ms) is below the clicks' (W - 1 ms).
		out := m[len(m)-1] - time.Hour.Milliseconds() - 1
		windows := map[time.Time]int{}
		ads := map[string]bool{}
		for _, imp := range allImp {
			for _, clk := range allClk {
				if clk.k == imp.k && !clk.ts.Before(imp.ts) && !clk.ts.After(imp.ts.Add(time.Hour)) {
					windows[clk.ts.Truncate(15*time.Minute)]++
					ads[imp.k] = true
				}
			}
		}
		var want []string
		if mode == "joindedup" {
			for a := range ads {
				want = append(want, a)
			}
		} else {
			for start, c := range windows {
				if start.Add(15*time.Minute).UnixMilli() <= out {
					want = append(want, fmt.Sprintf("%s %d", span(start, start.Add(15*time.Minute)), c))
				}
			}
		}
		sort.Strings(want)
		return want
	}
}
