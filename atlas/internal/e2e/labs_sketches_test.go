package e2e_test

import (
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
)

// lab05Edits is how many edits lab 5's Setup cell replays into the topic.
const lab05Edits = 20_000

// lab05Reference is what lab 5 is checked against, computed here from the
// raw Kafka records with encoding/json and Go maps.
type lab05Reference struct {
	users      map[string]bool
	titles     map[string]int64
	timestamps []int64 // sorted
}

// lab05Read decodes the edits topic into the reference.
func lab05Read(t *testing.T, st *privateStack) lab05Reference {
	ref := lab05Reference{users: map[string]bool{}, titles: map[string]int64{}}
	for _, recs := range st.kafka(t).readTopic("wiki_edits") {
		for _, r := range recs {
			var ed produce.Edit
			if err := json.Unmarshal(r.value, &ed); err != nil {
				t.Fatalf("record %d/%d: %v", r.partition, r.offset, err)
			}
			ref.users[ed.User] = true
			ref.titles[ed.Title]++
			ref.timestamps = append(ref.timestamps, ed.Timestamp)
		}
	}
	sort.Slice(ref.timestamps, func(i, j int) bool { return ref.timestamps[i] < ref.timestamps[j] })
	if len(ref.timestamps) != lab05Edits {
		t.Fatalf("the topic holds %d edits, the Setup cell replays %d", len(ref.timestamps), lab05Edits)
	}
	return ref
}

// Lines the lab 5 cells print.
var (
	lab05HLL   = regexp.MustCompile(`hll rsd=(\S+) approx=(\d+) exact=(\d+)`)
	lab05CMS   = regexp.MustCompile(`cms eps=(\S+) bytes=\d+ title=("(?:[^"\\]|\\.)*") true=(\d+) estimate=(\d+)`)
	lab05Bloom = regexp.MustCompile(`bloom fpp=(\S+) .*members=(\d+) false_negatives=(\d+) probes=(\d+) false_positives=(\d+)`)
	lab05GK    = regexp.MustCompile(`gk accuracy=(\d+) p=(\S+) approx=(\d+) exact=(\d+)`)
)

// checkLab05 checks lab 5's sketches against the raw records: exact
// answers exactly (distinct editors, the true heavy hitters and their
// counts, no Bloom false negatives, the exact percentiles, a reservoir of
// k distinct records out of all of them) and approximate ones within their
// bounds (HyperLogLog++ within 3·rsd, Count-Min between the true count and
// true + eps·N, percentile_approx within N/accuracy ranks, Bloom false
// positives near fpp). The sketches' seeds and the data are fixed, so the
// probabilistic bounds either always hold or never do.
func checkLab05(t *testing.T, st *privateStack, cells []executedCell) {
	checkLiveView(t, cells, "load")
	ref := lab05Read(t, st)
	n := int64(len(ref.timestamps))
	if got := intAfter(t, taggedCell(t, cells, "load").stdout(), "saved edits"); got != n {
		t.Errorf("the Load cell saved %d edits, the topic holds %d", got, n)
	}

	hll := taggedCell(t, cells, "hll").stdout()
	if got := intAfter(t, hll, "exact distinct users"); got != int64(len(ref.users)) {
		t.Errorf("exact distinct users %d, the reference %d", got, len(ref.users))
	}
	lines := lab05HLL.FindAllStringSubmatch(hll, -1)
	if len(lines) != 5 {
		t.Errorf("%d HyperLogLog++ lines, want 5:\n%s", len(lines), hll)
	}
	for _, m := range lines {
		rsd, _ := strconv.ParseFloat(m[1], 64)
		approx, _ := strconv.ParseInt(m[2], 10, 64)
		exact := float64(len(ref.users))
		if math.Abs(float64(approx)-exact) > 3*rsd*exact+1 {
			t.Errorf("approx_count_distinct(user, %g) = %d, exact %d: beyond 3·rsd", rsd, approx, len(ref.users))
		}
	}

	type titleCount struct {
		title string
		count int64
	}
	var top []titleCount
	for k, c := range ref.titles {
		top = append(top, titleCount{k, c})
	}
	sort.Slice(top, func(i, j int) bool {
		if top[i].count != top[j].count {
			return top[i].count > top[j].count
		}
		return top[i].title < top[j].title
	})
	cms := taggedCell(t, cells, "cms").stdout()
	perEps := map[string]int{}
	for _, m := range lab05CMS.FindAllStringSubmatch(cms, -1) {
		eps, _ := strconv.ParseFloat(m[1], 64)
		title, err := strconv.Unquote(m[2])
		if err != nil {
			t.Fatalf("title %s: %v", m[2], err)
		}
		truth, _ := strconv.ParseInt(m[3], 10, 64)
		est, _ := strconv.ParseInt(m[4], 10, 64)
		i := perEps[m[1]]
		perEps[m[1]]++
		if i >= len(top) || top[i].title != title || top[i].count != truth {
			t.Errorf("heavy hitter %d at eps %g: %q %d, the reference %v", i+1, eps, title, truth, top[min(i, len(top)-1)])
		}
		if est < truth || float64(est) > float64(truth)+eps*float64(n) {
			t.Errorf("Count-Min(eps %g) of %q: %d, want within [%d, %d + eps·N]", eps, title, est, truth, truth)
		}
	}
	if len(perEps) != 3 || perEps["0.01"] != 10 || perEps["0.002"] != 10 || perEps["0.0005"] != 10 {
		t.Errorf("Count-Min lines per eps %v, want 10 for each of 0.01, 0.002, 0.0005", perEps)
	}

	bloom := taggedCell(t, cells, "bloom").stdout()
	lines = lab05Bloom.FindAllStringSubmatch(bloom, -1)
	if len(lines) != 4 {
		t.Errorf("%d Bloom filter lines, want 4:\n%s", len(lines), bloom)
	}
	for _, m := range lines {
		fpp, _ := strconv.ParseFloat(m[1], 64)
		members, _ := strconv.Atoi(m[2])
		falseNeg, _ := strconv.Atoi(m[3])
		probes, _ := strconv.Atoi(m[4])
		falsePos, _ := strconv.Atoi(m[5])
		if members != len(ref.users) || falseNeg != 0 {
			t.Errorf("Bloom filter(fpp %g): %d members with %d false negatives, want %d members and none", fpp, members, falseNeg, len(ref.users))
		}
		if probes != 10_000 || float64(falsePos)/float64(probes) > 2*fpp+0.005 {
			t.Errorf("Bloom filter(fpp %g): %d false positives in %d probes, far above fpp", fpp, falsePos, probes)
		}
	}

	res := taggedCell(t, cells, "reservoir").stdout()
	k, seen, sampled, distinct := intAfter(t, res, "reservoir k"), intAfter(t, res, "seen"), intAfter(t, res, "sampled"), intAfter(t, res, "distinct_records")
	if seen != n || sampled != k || distinct != k || k != 200 {
		t.Errorf("reservoir: k=%d seen=%d sampled=%d distinct=%d, want 200 distinct records of %d", k, seen, sampled, distinct, n)
	}
	checkLab05Reservoir(t, cells, k, n)

	gk := taggedCell(t, cells, "percentiles").stdout()
	lines = lab05GK.FindAllStringSubmatch(gk, -1)
	if len(lines) != 12 {
		t.Errorf("%d percentile lines, want 12:\n%s", len(lines), gk)
	}
	ts := ref.timestamps
	for _, m := range lines {
		acc, _ := strconv.ParseFloat(m[1], 64)
		p, _ := strconv.ParseFloat(m[2], 64)
		approx, _ := strconv.ParseInt(m[3], 10, 64)
		exact, _ := strconv.ParseInt(m[4], 10, 64)
		if want := ts[int(math.Ceil(p*float64(n)))-1]; exact != want {
			t.Errorf("exact percentile %g: %d, the reference %d", p, exact, want)
		}
		below := sort.Search(len(ts), func(j int) bool { return ts[j] >= approx })
		upTo := sort.Search(len(ts), func(j int) bool { return ts[j] > approx })
		target, bound := p*float64(n), float64(n)/acc+1
		if below == upTo || target < float64(below)-bound || target > float64(upTo)+bound {
			t.Errorf("percentile_approx(%g, accuracy %v) = %d: ranks [%d, %d], want %v within %v", p, acc, approx, below, upTo, target, bound)
		}
	}
	if chart := taggedCell(t, cells, "chart").stdout(); !strings.Contains(chart, "chart points hll=5 cms=3 bloom=4, each the mean of 5 seeds") {
		t.Errorf("the chart cell did not plot every point:\n%s", chart)
	}
	checkLab05Chart(t, taggedCell(t, cells, "chart").stdout())
	checkLab05Memory(t, cells, hll)
}

// Lines of lab 5's reservoir and chart cells.
var (
	lab05Half   = regexp.MustCompile(`first_half=(\d+) of (\d+), uniform predicts (\d+) ± ([0-9.]+) \(1σ\): z=(-?[0-9.]+)`)
	lab05Chi    = regexp.MustCompile(`over (\d+) seeds: sampled items per tenth of the stream \[([0-9 ]+)\] \(uniform: (\d+) each\); chi_square=([0-9.]+), uniform at the 1% level=(\w+)`)
	lab05Mean   = regexp.MustCompile(`mean over 5 seeds: (\w+) bytes=(\d+) error=([0-9.]+)`)
	lab05HLLMem = regexp.MustCompile(`hll rsd=0\.01 approx=\d+ exact=\d+ relative_error=[0-9.]+ bytes=(\d+)`)
)

// checkLab05Reservoir checks the reservoir cell's statistics, recomputed
// here: the one sample's distance from half in standard deviations
// (hypergeometric: k of N positions, half of them in the first half), and
// the 1,000-seed test: every sampled item counted once in a tenth of the
// stream and the chi-square statistic of those counts, which a uniform
// sampler keeps under 21.67 (9 degrees of freedom, 1%) and a biased one
// (a fixed replacement probability favours the end) does not. The prose
// no longer calls a single sample "about half".
func checkLab05Reservoir(t *testing.T, cells []executedCell, k, n int64) {
	t.Helper()
	res := taggedCell(t, cells, "reservoir").stdout()
	m := lab05Half.FindStringSubmatch(res)
	if m == nil {
		t.Fatalf("the reservoir cell does not test its sample against the uniform spread:\n%s", res)
	}
	half, _ := strconv.ParseFloat(m[1], 64)
	sigma := math.Sqrt(float64(k) * 0.25 * float64(n-k) / float64(n-1))
	z := (half - float64(k)/2) / sigma
	if gotSigma, _ := strconv.ParseFloat(m[4], 64); math.Abs(gotSigma-sigma) > 0.05 {
		t.Errorf("reservoir: σ printed %s, want %.2f", m[4], sigma)
	}
	if gotZ, _ := strconv.ParseFloat(m[5], 64); math.Abs(gotZ-z) > 0.01 {
		t.Errorf("reservoir: z printed %s, want %.2f", m[5], z)
	}
	c := lab05Chi.FindStringSubmatch(res)
	if c == nil {
		t.Fatalf("the reservoir cell does not test the sampler over many seeds:\n%s", res)
	}
	runs, _ := strconv.ParseFloat(c[1], 64)
	expected := runs * float64(k) / 10
	var total, chi2 float64
	for _, f := range strings.Fields(c[2]) {
		o, _ := strconv.ParseFloat(f, 64)
		total += o
		chi2 += (o - expected) * (o - expected) / expected
	}
	if len(strings.Fields(c[2])) != 10 || total != runs*float64(k) || runs < 100 {
		t.Errorf("reservoir: %s sampled items over 10 tenths (%v in all), want %v in %v runs", c[2], total, runs*float64(k), runs)
	}
	if got, _ := strconv.ParseFloat(c[4], 64); math.Abs(got-chi2) > 0.01 {
		t.Errorf("reservoir: chi-square printed %s, recomputed %.2f", c[4], chi2)
	}
	if chi2 >= 21.67 || c[5] != "true" {
		t.Errorf("reservoir: chi-square %.2f (printed uniform=%s): Algorithm R is not uniform over 10 tenths", chi2, c[5])
	}
	proseSays(t, "the reservoir section", markdownCell(t, cells, "## 4. Reservoir sampling"),
		[]string{"One sample proves little", "1,000 seeds", "21.67"}, nil)
	if strings.Contains(res, "about half") {
		t.Errorf("the reservoir cell still judges one sample as \"about half\":\n%s", res)
	}
}

// checkLab05Chart checks that each chart point is a mean over seeds that
// shows the trade-off: for each sketch, its error at the most memory is
// below its error at the least.
func checkLab05Chart(t *testing.T, chart string) {
	t.Helper()
	type pt struct{ bytes, err float64 }
	series := map[string][]pt{}
	for _, m := range lab05Mean.FindAllStringSubmatch(chart, -1) {
		b, _ := strconv.ParseFloat(m[2], 64)
		e, _ := strconv.ParseFloat(m[3], 64)
		series[m[1]] = append(series[m[1]], pt{b, e})
	}
	for name, want := range map[string]int{"hll": 5, "cms": 3, "bloom": 4} {
		ps := series[name]
		if len(ps) != want {
			t.Errorf("chart: %d mean points for %s, want %d", len(ps), name, want)
			continue
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i].bytes < ps[j].bytes })
		if !(ps[len(ps)-1].err < ps[0].err) {
			t.Errorf("chart: %s's mean error at %v bytes (%v) is not below its error at %v bytes (%v): no trade-off", name, ps[len(ps)-1].bytes, ps[len(ps)-1].err, ps[0].bytes, ps[0].err)
		}
	}
}

// checkLab05Memory checks Check yourself's question 1 against Spark's
// HyperLogLog++ layout (p = ceil(2·log2(1.106/rsd)), 2^p registers of 6
// bits, 10 to an 8-byte word) and the HLL cell's output.
func checkLab05Memory(t *testing.T, cells []executedCell, hll string) {
	t.Helper()
	p := math.Ceil(2 * math.Log2(1.106/0.01))
	registers := math.Pow(2, p)
	bytes := math.Ceil(registers/10) * 8
	m := lab05HLLMem.FindStringSubmatch(hll)
	if m == nil {
		t.Fatalf("the HLL cell prints no rsd=0.01 line:\n%s", hll)
	}
	if got, _ := strconv.ParseFloat(m[1], 64); got != bytes {
		t.Errorf("the HLL cell prints %s bytes at rsd 0.01, Spark's layout needs %v", m[1], bytes)
	}
	check := markdownCell(t, cells, "## Check yourself")
	if said := proseNumber(t, check, "`rsd=0.01` uses ([0-9,]+) bytes"); said != bytes {
		t.Errorf("Check yourself says %v bytes at rsd 0.01; it is %v", said, bytes)
	}
	if said := proseNumber(t, check, `\(the HLL cell prints it: ([0-9,]+) registers`); said != registers {
		t.Errorf("Check yourself says %v registers; it is %v", said, registers)
	}
	proseSays(t, "Check yourself", check, nil, []string{"a few kilobytes"})
}
