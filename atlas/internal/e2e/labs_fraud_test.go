package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/avro"

	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
)

// fraudRecords is how many records the fraud notebook's Setup cell produces.
const fraudRecords = 20_000

// fraudReference is the fraud velocity pipeline recomputed from the raw
// Kafka records with twmb/avro's single-object decoder: the records of the
// contract, each event_id once, the late ones, and the gold windows.
type fraudReference struct {
	unknown, malformed int64
	silver             map[string]produce.PaymentEvent // by event_id
	late               map[string]bool
	gold               map[goldKey]*goldAgg
}

// goldKey is one account's 5-minute window.
type goldKey struct {
	start   time.Time
	account string
}

// goldAgg is a gold row's reference: exact distinct sets.
type goldAgg struct {
	count              int64
	amount             float64
	merchants, devices map[string]bool
}

// computeFraudReference decodes the topic's records and applies the
// pipeline's rules to them.
func computeFraudReference(t *testing.T, recs map[int32][]kafkaRecord) fraudReference {
	t.Helper()
	contract := avro.MustParse(produce.PaymentSchema)
	// The contract's fingerprint as its single-object header carries it.
	header, err := contract.AppendSingleObject(nil, &produce.PaymentEvent{})
	if err != nil {
		t.Fatal(err)
	}
	fp := header[2:10]
	ref := fraudReference{silver: map[string]produce.PaymentEvent{}, late: map[string]bool{}, gold: map[goldKey]*goldAgg{}}
	// Partitions in order, offsets in order: the first record of an
	// event_id wins (duplicates are byte-identical anyway).
	parts := make([]int32, 0, len(recs))
	for p := range recs {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	total := 0
	for _, p := range parts {
		for _, r := range recs[p] {
			total++
			got, _, err := avro.SingleObjectFingerprint(r.value)
			if err == nil && !bytes.Equal(got[:], fp) {
				ref.unknown++
				continue
			}
			var ev produce.PaymentEvent
			if _, err := contract.DecodeSingleObject(r.value, &ev); err != nil {
				ref.malformed++
				continue
			}
			if _, dup := ref.silver[ev.EventID]; dup {
				continue
			}
			ref.silver[ev.EventID] = ev
			if ev.IngestionTime.Sub(ev.EventTime) > 10*time.Minute {
				ref.late[ev.EventID] = true
			}
		}
	}
	if total != fraudRecords {
		t.Fatalf("the topic holds %d records, the Setup cell produces %d", total, fraudRecords)
	}
	for _, ev := range ref.silver {
		first := ev.EventTime.UTC().Truncate(time.Minute)
		for k := 0; k < 5; k++ {
			start := first.Add(-time.Duration(k) * time.Minute)
			key := goldKey{start, ev.AccountID}
			a := ref.gold[key]
			if a == nil {
				a = &goldAgg{merchants: map[string]bool{}, devices: map[string]bool{}}
				ref.gold[key] = a
			}
			a.count++
			a.amount += ev.Amount
			a.merchants[ev.MerchantID] = true
			a.devices[ev.DeviceID] = true
		}
	}
	return ref
}

// checkFraudVelocity compares every output of the fraud notebook (silver
// and late Parquet, the gold JSON lines, the run report) with the
// reference from the raw records.
func checkFraudVelocity(t *testing.T, st *privateStack, cells []executedCell) {
	checkLiveView(t, cells, "write")
	if !strings.Contains(taggedCell(t, cells, "write").stdout(), "the three queries drained the topic; run report written") {
		t.Fatalf("the Write cell did not finish:\n%s", taggedCell(t, cells, "write").stdout())
	}
	e := st.kafka(t)
	ref := computeFraudReference(t, e.readTopic("payments"))
	dir := filepath.Join(st.home, "fraud_velocity")
	ctx := context.Background()

	// Silver: each event of the contract once, every field as decoded.
	rows, err := e.session.Read().Parquet(filepath.Join(dir, "silver_events")).Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		id, _ := r["event_id"].(string)
		want, ok := ref.silver[id]
		switch {
		case seen[id]:
			t.Errorf("silver_events holds %s twice", id)
		case !ok:
			t.Errorf("silver_events holds %s, not an event of the contract", id)
		case r["account_id"] != want.AccountID || r["merchant_id"] != want.MerchantID || r["device_id"] != want.DeviceID ||
			r["amount"] != want.Amount || r["currency"] != want.Currency ||
			!timeEq(r["event_time"], want.EventTime) || !timeEq(r["ingestion_time"], want.IngestionTime):
			t.Errorf("silver_events row %v, the record decodes to %+v", r, want)
		}
		seen[id] = true
	}
	if len(seen) != len(ref.silver) {
		t.Errorf("silver_events holds %d events, the reference %d", len(seen), len(ref.silver))
	}

	// Late events: exactly the reference's.
	rows, err = e.session.Read().Parquet(filepath.Join(dir, "late_events")).Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	late := map[string]bool{}
	for _, r := range rows {
		id, _ := r["event_id"].(string)
		if !ref.late[id] || late[id] {
			t.Errorf("late_events holds %s: not late, or twice", id)
		}
		late[id] = true
	}
	if len(late) != len(ref.late) || len(late) == 0 {
		t.Errorf("late_events holds %d events, the reference %d", len(late), len(ref.late))
	}

	// Gold: every window, exact count and amount, distinct estimates
	// within HyperLogLog++'s error at rsd 0.05 (3 sigma, at least 1).
	f, err := os.Open(filepath.Join(dir, "gold_account_velocity.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	goldSeen := map[goldKey]bool{}
	devices := map[int64]int{} // windows by approx_devices, as written
	inexact := 0               // windows whose approx_devices is not the exact count
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var g struct {
			WindowStart     time.Time `json:"window_start"`
			WindowEnd       time.Time `json:"window_end"`
			AccountID       string    `json:"account_id"`
			TxnCount        int64     `json:"txn_count"`
			Amount          float64   `json:"amount"`
			ApproxMerchants int64     `json:"approx_merchants"`
			ApproxDevices   int64     `json:"approx_devices"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("gold line %q: %v", sc.Text(), err)
		}
		k := goldKey{g.WindowStart.UTC(), g.AccountID}
		want := ref.gold[k]
		if want == nil || goldSeen[k] {
			t.Errorf("gold holds window %v twice or not in the reference", k)
			continue
		}
		goldSeen[k] = true
		devices[g.ApproxDevices]++
		if g.ApproxDevices != int64(len(want.devices)) {
			inexact++
		}
		if !g.WindowEnd.Equal(k.start.Add(5*time.Minute)) || g.TxnCount != want.count || math.Abs(g.Amount-want.amount) > 1e-6*math.Max(1, want.amount) ||
			!hllClose(g.ApproxMerchants, len(want.merchants)) || !hllClose(g.ApproxDevices, len(want.devices)) {
			t.Errorf("gold %v: %+v, reference count %d amount %.2f merchants %d devices %d",
				k, g, want.count, want.amount, len(want.merchants), len(want.devices))
		}
	}
	if len(goldSeen) != len(ref.gold) {
		t.Errorf("gold holds %d windows, the reference %d", len(goldSeen), len(ref.gold))
	}

	checkFraudProse(t, cells, devices, len(ref.gold), inexact)

	// The run report: what was read, ignored and written.
	var rep struct {
		InputRecords       int64            `json:"input_records"`
		UnknownFingerprint int64            `json:"unknown_fingerprint_records"`
		MalformedPayloads  int64            `json:"malformed_payload_records"`
		Outputs            map[string]int64 `json:"outputs"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "spark-run-report.json"))
	if err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("spark-run-report.json: %v\n%s", err, data)
	}
	if rep.InputRecords != fraudRecords || rep.UnknownFingerprint != ref.unknown || rep.MalformedPayloads != ref.malformed ||
		rep.Outputs["silver_events"] != int64(len(ref.silver)) || rep.Outputs["late_events"] != int64(len(ref.late)) ||
		rep.Outputs["gold_account_velocity"] != int64(len(ref.gold)) {
		t.Errorf("run report %s; reference: %d records, %d unknown fingerprint, %d malformed, %d silver, %d late, %d gold",
			data, fraudRecords, ref.unknown, ref.malformed, len(ref.silver), len(ref.late), len(ref.gold))
	}
	if ref.unknown == 0 || ref.malformed == 0 {
		t.Errorf("the stream has %d unknown-fingerprint and %d malformed records: the check needs both", ref.unknown, ref.malformed)
	}
	// The report cell shows the same file.
	if !regexp.MustCompile(`"input_records": \d+`).MatchString(taggedCell(t, cells, "report").stdout()) {
		t.Errorf("the report cell does not show the report")
	}
}

// timeEq compares a timestamp read back with the reference's.
func timeEq(v any, want time.Time) bool {
	got, ok := v.(time.Time)
	return ok && got.Equal(want)
}

// hllClose says whether an approx_count_distinct estimate is within three
// standard errors (rsd 0.05) of the exact count, or off by at most one.
func hllClose(got int64, exact int) bool {
	d := math.Abs(float64(got) - float64(exact))
	return d <= 1 || d <= 3*0.05*float64(exact)
}

// fraudDevices matches the Verify cell's line on approx_devices.
var fraudDevices = regexp.MustCompile(`approx_devices is 1 or 2 in (\d+) of (\d+) windows`)

// checkFraudProse checks what the Write section and Check yourself say
// against the code and the gold windows: gold in complete mode through
// foreachBatch into gold_account_velocity.jsonl (no memory table), and
// approx_devices's spread (the share of windows at 1 or 2 devices, the
// median, exactness) as the Verify cell prints it and the reference
// recomputes it from the raw records (devices: windows by approx_devices,
// windows: the reference's count, inexact: windows whose estimate is not
// the exact count).
func checkFraudProse(t *testing.T, cells []executedCell, devices map[int64]int, windows, inexact int) {
	t.Helper()
	write := codeCell(t, cells, "write")
	if !strings.Contains(write, `OutputMode("complete")`) || !strings.Contains(write, "ForeachBatch(writeGold)") || !strings.Contains(write, `"gold_account_velocity.jsonl"`) {
		t.Fatalf("the Write cell no longer writes gold in complete mode through ForeachBatch(writeGold) into gold_account_velocity.jsonl: fix the prose too")
	}
	check := markdownCell(t, cells, "## Check yourself")
	proseSays(t, "Check yourself", check,
		[]string{"Gold runs in complete mode", "a `foreachBatch` function replaces `gold_account_velocity.jsonl`"},
		[]string{"memory table", "1 or 2 in most windows"})
	proseSays(t, "the Write section", markdownCell(t, cells, "## Write"),
		[]string{"gold runs in **complete** mode", "`foreachBatch` function replaces `gold_account_velocity.jsonl`"}, []string{"memory table"})

	small := devices[1] + devices[2]
	m := fraudDevices.FindStringSubmatch(taggedCell(t, cells, "verify").stdout())
	if m == nil {
		t.Fatalf("the Verify cell does not print approx_devices's spread:\n%s", taggedCell(t, cells, "verify").stdout())
	}
	if m[1] != strconv.Itoa(small) || m[2] != strconv.Itoa(windows) {
		t.Errorf("the Verify cell says 1 or 2 devices in %s of %s windows; the gold file has %d of %d", m[1], m[2], small, windows)
	}
	share := 100 * float64(small) / float64(windows)
	if said := proseNumber(t, check, `1 or 2 in only about (\d+)%`); math.Abs(said-share) > 0.5 {
		t.Errorf("Check yourself says 1 or 2 devices in about %v%% of the windows; it is %.1f%%", said, share)
	}
	values := make([]int64, 0, len(devices))
	for v := range devices {
		values = append(values, v)
	}
	sort.Slice(values, func(i, j int) bool { return values[i] < values[j] })
	median, seen := int64(0), 0
	for _, v := range values {
		if seen += devices[v]; 2*seen >= windows {
			median = v
			break
		}
	}
	if said := proseNumber(t, check, `the median window sees (\d+) devices`); int64(said) != median {
		t.Errorf("Check yourself says the median window sees %v devices; it sees %d", said, median)
	}
	if inexact != 0 {
		t.Errorf("Check yourself says HyperLogLog++ is exact for these counts, but %d windows' approx_devices differ from the exact count", inexact)
	}
}
