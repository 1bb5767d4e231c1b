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
	// A uniform sample takes each record with probability k/N: the count
	// from the first half of the stream is Binomial(k, 1/2), within 3σ.
	if half := intAfter(t, res, "first_half"); math.Abs(float64(half)-float64(k)/2) > 3*math.Sqrt(float64(k)/4) {
		t.Errorf("reservoir: %d of %d sampled records from the first half of the stream: not uniform", half, k)
	}

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
	if chart := taggedCell(t, cells, "chart").stdout(); !strings.Contains(chart, "chart points hll=5 cms=3 bloom=4") {
		t.Errorf("the chart cell did not plot every point:\n%s", chart)
	}
}
