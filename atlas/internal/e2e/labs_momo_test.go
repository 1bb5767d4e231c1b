package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// lab06Txns is how many transactions lab 6's Setup cell produces.
const lab06Txns = 40_000

// lab06Provinces is the province of each district the stream holds, as
// Rwanda's administrative map has it (the test's own copy, not the CSV the
// notebook writes).
var lab06Provinces = map[string]string{"Gasabo": "Kigali City", "Huye": "Southern", "Musanze": "Northern", "Rubavu": "Western"}

// momoTxn is one raw mobile-money record, decoded here with encoding/json.
type momoTxn struct {
	id       int64
	district any // string, or nil for a JSON null
	amount   float64
	ms       int64 // event time, Unix milliseconds
}

// decodeMomo decodes one record's JSON value.
func decodeMomo(t *testing.T, v []byte) momoTxn {
	t.Helper()
	var r struct {
		TxnID    int64   `json:"txn_id"`
		District *string `json:"district"`
		Amount   float64 `json:"amount"`
		TS       float64 `json:"ts"`
	}
	if err := json.Unmarshal(v, &r); err != nil {
		t.Fatalf("record %s: %v", v, err)
	}
	m := momoTxn{id: r.TxnID, amount: r.Amount, ms: int64(math.Round(r.TS * 1000))}
	if r.District != nil {
		m.district = *r.District
	}
	return m
}

// groupWindow is one (window start, group) of a windowed aggregation.
type groupWindow struct {
	startMs int64
	group   string
}

// nvol is a count and a volume.
type nvol struct {
	n      int64
	volume float64
}

// groupName prints a possibly null group as the tables are compared.
func groupName(v any) string { return fmt.Sprint(v) }

// checkLab06 recomputes lab 6's three outputs from the raw Kafka records:
// the alerts (1-minute windows per district over 5,000,000, closed by the
// final watermark, the transactions uploaded hours late left out), their
// per-district counts as the foreachBatch upsert appended them, and the
// volume per province of the left stream-static join (every record).
func checkLab06(t *testing.T, st *privateStack, cells []executedCell) {
	checkLiveView(t, cells, "alerts")
	out := taggedCell(t, cells, "alerts").stdout()
	m := regexp.MustCompile(`alerts: (\d+) batches, (\d+) transactions read, (\d+) late rows dropped by the watermark, final watermark (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the alerts cell printed no summary:\n%s", out)
	}
	e := st.kafka(t)
	var txns []momoTxn
	for _, recs := range e.readTopic("momo-txns") {
		for _, r := range recs {
			txns = append(txns, decodeMomo(t, r.value))
		}
	}
	if len(txns) != lab06Txns {
		t.Fatalf("the topic holds %d transactions, the Setup cell produces %d", len(txns), lab06Txns)
	}
	// The stream starts with txn 0; a transaction stamped more than an
	// hour before it was uploaded late (the stream covers 15 minutes).
	var firstMs int64
	for _, x := range txns {
		if x.id == 0 {
			firstMs = x.ms
		}
	}
	minute := int64(time.Minute / time.Millisecond)
	windows := map[groupWindow]nvol{}
	var late, maxMs int64
	for _, x := range txns {
		if x.ms < firstMs-60*minute {
			late++
			continue
		}
		maxMs = max(maxMs, x.ms)
		k := groupWindow{x.ms - x.ms%minute, groupName(x.district)}
		w := windows[k]
		w.n++
		w.volume += x.amount
		windows[k] = w
	}
	if got, _ := strconv.ParseInt(m[2], 10, 64); got != lab06Txns {
		t.Errorf("the alerts query read %d transactions, the topic holds %d", got, lab06Txns)
	}
	if got, _ := strconv.ParseInt(m[3], 10, 64); late == 0 || got != late {
		t.Errorf("the alerts query dropped %d late rows; %d transactions were uploaded hours late", got, late)
	}
	wm := maxMs - 2*minute
	if got, err := time.Parse(time.RFC3339Nano, m[4]); err != nil || got.UnixMilli() != wm {
		t.Errorf("final watermark %s, the latest on-time event time minus 2 minutes is %s", m[4], time.UnixMilli(wm).UTC().Format(time.RFC3339Nano))
	}
	want := map[groupWindow]nvol{}
	perDistrict := map[string]int64{}
	for k, w := range windows {
		if k.startMs+minute <= wm && w.volume > 5_000_000 {
			want[k] = w
			perDistrict[k.group]++
		}
	}
	if len(want) == 0 || len(want) == len(windows) {
		t.Fatalf("the reference has %d alerts of %d windows: the data does not test the filter", len(want), len(windows))
	}
	ctx := context.Background()
	dir := filepath.Join(st.home, "lab06")
	rows, err := e.session.Read().Parquet(filepath.Join(dir, "alerts")).Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[groupWindow]nvol{}
	for _, r := range rows {
		k := groupWindow{r["window_start"].(time.Time).UnixMilli(), groupName(r["district"])}
		if _, dup := got[k]; dup {
			t.Errorf("alert %v written twice", k)
		}
		got[k] = nvol{r["n"].(int64), r["volume"].(float64)}
		if end := r["window_end"].(time.Time).UnixMilli(); end != k.startMs+minute {
			t.Errorf("alert %v ends at %d", k, end)
		}
	}
	diffGroupWindows(t, "alerts", got, want)

	rows, err = e.session.Read().Parquet(filepath.Join(dir, "district_counts")).Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	seen := map[string]bool{}
	for _, r := range rows {
		d := groupName(r["district"])
		counts[d] += r["count"].(int64)
		key := fmt.Sprint(d, "/", r["batch_id"])
		if seen[key] {
			t.Errorf("district_counts holds district %s of batch %v twice", d, r["batch_id"])
		}
		seen[key] = true
	}
	diffCounts(t, "district_counts", counts, perDistrict)

	// The join has no watermark: every transaction, late or not.
	provinces := map[string]nvol{}
	for _, x := range txns {
		var p any
		if d, ok := x.district.(string); ok {
			if v, ok := lab06Provinces[d]; ok {
				p = v
			} else {
				t.Fatalf("district %q is not one of the stream's", d)
			}
		}
		w := provinces[groupName(p)]
		w.n++
		w.volume += x.amount
		provinces[groupName(p)] = w
	}
	rows, err = e.session.Read().Parquet(filepath.Join(dir, "province_volume")).Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gotP := map[string]nvol{}
	for _, r := range rows {
		gotP[groupName(r["province"])] = nvol{r["n"].(int64), r["volume"].(float64)}
	}
	if fmt.Sprint(gotP) != fmt.Sprint(provinces) {
		t.Errorf("province_volume %v, the reference %v", gotP, provinces)
	}
}

// diffGroupWindows reports the windows whose count or volume differ, a few at most.
func diffGroupWindows(t *testing.T, what string, got, want map[groupWindow]nvol) {
	t.Helper()
	bad := 0
	for k, w := range want {
		if got[k] != w {
			if bad++; bad <= 5 {
				t.Errorf("%s %s %s: %+v, the reference %+v", what, time.UnixMilli(k.startMs).UTC().Format(time.DateTime), k.group, got[k], w)
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			if bad++; bad <= 5 {
				t.Errorf("%s %s %s: %+v, not in the reference", what, time.UnixMilli(k.startMs).UTC().Format(time.DateTime), k.group, got[k])
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, the reference %d", what, len(got), len(want))
	}
}
