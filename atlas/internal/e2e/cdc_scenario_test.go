package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/atlas-lakehouse/atlas/atlas/internal/scenarios"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

const cdcTable = "lakehouse.silver.online_retail_cdc"

func (e *env) produceCDC(cfg produce.CDCConfig) {
	e.t.Helper()
	cl, err := stack.NewClient([]string{e.brokers})
	if err != nil {
		e.t.Fatal(err)
	}
	defer cl.Close()
	if err := stack.EnsureTopic(context.Background(), []string{e.brokers}, produce.DefaultCDCTopic, 3); err != nil {
		e.t.Fatal(err)
	}
	if _, err := produce.ProduceCDC(context.Background(), cl, cfg, nil); err != nil {
		e.t.Fatal(err)
	}
}

// readCDCTopic reads the n change records back with a plain client,
// stopping as soon as all n arrived.
func (e *env) readCDCTopic(n int64) map[int32][]kafkaRecord {
	e.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.brokers), kgo.ConsumeTopics(produce.DefaultCDCTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		e.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out := map[int32][]kafkaRecord{}
	var got int64
	for got < n && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			out[r.Partition] = append(out[r.Partition], kafkaRecord{r.Partition, r.Offset, r.Value})
			got++
		})
	}
	if got != n {
		e.t.Fatalf("read %d change records back, produced %d", got, n)
	}
	return out
}

func (e *env) createCDCTable() { e.createCDCTableMode(lakehouse.CopyOnWrite) }

// createCDCTableMode creates the CDC table with write.merge.mode = mode.
func (e *env) createCDCTableMode(mode string) {
	e.t.Helper()
	mustSQL(e.t, e.session, `CREATE TABLE IF NOT EXISTS lakehouse.silver.online_retail_cdc (
		invoice string, stock_code string, quantity bigint, price double,
		CustomerID double, Country string, ts timestamp) USING iceberg
		TBLPROPERTIES ('write.merge.mode' = '`+mode+`')`)
}

// cdcChanges is the change stream parsed, with the Kafka offset kept for
// LatestPerKey.
func cdcChanges(s *engine.Session, maxPerTrigger int) *engine.DataFrame {
	raw := s.ReadStream().Format("kafka").
		Option("subscribe", produce.DefaultCDCTopic).
		Option("startingOffsets", "earliest").
		Option("maxOffsetsPerTrigger", maxPerTrigger).
		Load()
	return raw.Select(
		engine.FromJSON(engine.Col("value").Cast("string"), "op string, invoice string, stock_code string, quantity bigint, price double, CustomerID double, Country string, ts timestamp").Alias("c"),
		engine.Col("offset")).
		Select("c.*", "offset")
}

// cdcRun counts what the foreachBatch callback saw.
type cdcRun struct {
	batches   int
	skipped   []int64 // batches whose merge was skipped as already committed
	maxPerKey int     // most changes of one key in one batch
}

func (e *env) startCDC(name string, maxPerTrigger int, reduce bool, run *cdcRun) *engine.StreamingQuery {
	e.t.Helper()
	s := e.session
	q, err := cdcChanges(s, maxPerTrigger).WriteStream().
		Trigger(engine.AvailableNow()).
		Option("checkpointLocation", filepath.Join(e.home, "ck", name)).
		Progress(false).
		ForeachBatch(func(batch *engine.DataFrame, batchID int64) error {
			run.batches++
			rows, err := batch.Rows(context.Background())
			if err != nil {
				return err
			}
			per := map[string]int{}
			for _, r := range rows {
				k := fmt.Sprint(r["invoice"], "|", r["stock_code"])
				per[k]++
				run.maxPerKey = max(run.maxPerKey, per[k])
			}
			src := batch
			if reduce {
				src = batch.LatestPerKey([]string{"invoice", "stock_code"}, "offset")
			}
			if err := src.CreateOrReplaceTempView("updates"); err != nil {
				return err
			}
			res, err := s.SQL(scenarios.MergeChanges)
			if err != nil {
				return err
			}
			if res.Schema().Metadata().FindKey("atlas.note") >= 0 {
				run.skipped = append(run.skipped, batchID)
			}
			return nil
		}).
		Start()
	if err != nil {
		e.t.Fatal(err)
	}
	return q
}

// replayCDC replays the changes read back from Kafka with a plain client:
// per partition in offset order (a key lives in one partition), the last
// change of a key wins and a delete removes it; a value that is not a JSON
// object is skipped (the engine counts it as malformed). It returns the
// live changes by "invoice|stock_code".
func replayCDC(t *testing.T, recs map[int32][]kafkaRecord) map[string]produce.Change {
	t.Helper()
	live := map[string]produce.Change{}
	for _, list := range recs {
		sort.Slice(list, func(i, j int) bool { return list[i].offset < list[j].offset })
		for _, r := range list {
			var ch produce.Change
			if err := json.Unmarshal(r.value, &ch); err != nil {
				continue
			}
			k := ch.Invoice + "|" + ch.StockCode
			if ch.Op == produce.OpDelete {
				delete(live, k)
			} else {
				live[k] = ch
			}
		}
	}
	return live
}

// changeTime parses a change's ts.
func changeTime(t *testing.T, ch produce.Change) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, ch.TS)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// referenceCDC is replayCDC in readCDCTable's text form.
func referenceCDC(t *testing.T, recs map[int32][]kafkaRecord) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, ch := range replayCDC(t, recs) {
		cust := "<nil>"
		if ch.CustomerID != nil {
			cust = fmt.Sprint(*ch.CustomerID)
		}
		out[k] = fmt.Sprintf("q=%d p=%v c=%s %s %s", ch.Quantity, ch.Price, cust, ch.Country, changeTime(t, ch).UTC().Format(time.RFC3339Nano))
	}
	return out
}

func readCDCTable(t *testing.T, s *engine.Session) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range rowsOf(t, s.Table(cdcTable)) {
		k := fmt.Sprint(r["invoice"], "|", r["stock_code"])
		if _, dup := out[k]; dup {
			t.Fatalf("key %s appears twice in the table", k)
		}
		cust := "<nil>"
		if r["CustomerID"] != nil {
			cust = fmt.Sprint(r["CustomerID"])
		}
		out[k] = fmt.Sprintf("q=%d p=%v c=%s %s %s", r["quantity"], r["price"], cust, r["Country"], r["ts"].(time.Time).Format(time.RFC3339Nano))
	}
	return out
}

func diffCDC(t *testing.T, got, want map[string]string) {
	t.Helper()
	diffMaps(t, "key", got, want, func(k string) string { return k })
}

func cdcConfig(seed int64) produce.CDCConfig {
	return produce.CDCConfig{Count: 1500, Seed: seed, UpdateFraction: 0.55, DeleteFraction: 0.1, Keys: 450}
}

// TestCDCMergeMatchesReference streams the CDC scenario's changes into the
// table with foreachBatch + MERGE, copy-on-write and merge-on-read: the
// table equals an independent replay of the topic; merge-on-read still
// after compaction and expiry.
func TestCDCMergeMatchesReference(t *testing.T) {
	for _, c := range []struct {
		seed int64
		mode string
	}{{1, lakehouse.CopyOnWrite}, {2, lakehouse.CopyOnWrite}, {3, lakehouse.CopyOnWrite}, {1, lakehouse.MergeOnRead}, {2, lakehouse.MergeOnRead}, {3, lakehouse.MergeOnRead}} {
		seed := c.seed
		t.Run(fmt.Sprint(c.mode, "-seed", seed), func(t *testing.T) {
			e := newEnv(t)
			e.produceCDC(cdcConfig(seed))
			e.createCDCTableMode(c.mode)
			var run cdcRun
			q := e.startCDC("cdc", 180, true, &run)
			if err := q.AwaitTermination(); err != nil {
				t.Fatal(err)
			}
			if run.batches < 8 || run.maxPerKey < 2 {
				t.Fatalf("%d batches, at most %d changes of a key per batch: the test needs several batches holding repeated keys", run.batches, run.maxPerKey)
			}
			want := referenceCDC(t, e.readCDCTopic(cdcConfig(0).Count))
			if len(want) == 0 {
				t.Fatal("empty reference")
			}
			diffCDC(t, readCDCTable(t, e.session), want)
			if c.mode != lakehouse.MergeOnRead {
				return
			}
			lh, err := e.session.Lakehouse(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := lh.LoadTable(context.Background(), cdcTable)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.Compact(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
			diffCDC(t, readCDCTable(t, e.session), want)
			if _, err := tbl.ExpireSnapshots(context.Background(), 0, 1); err != nil {
				t.Fatal(err)
			}
			diffCDC(t, readCDCTable(t, e.session), want)
		})
	}
}

// TestCDCMergeRestartExactlyOnce stops the query mid-stream, removes the
// last commit-log entry (a crash after the merge committed but before the
// checkpoint recorded it) and restarts: the replayed batch's merge is
// skipped and the table still equals the reference.
func TestCDCMergeRestartExactlyOnce(t *testing.T) {
	for _, mode := range []string{lakehouse.CopyOnWrite, lakehouse.MergeOnRead} {
		t.Run(mode, func(t *testing.T) { testCDCRestart(t, mode) })
	}
}

func testCDCRestart(t *testing.T, mode string) {
	e := newEnv(t)
	e.produceCDC(cdcConfig(5))
	e.createCDCTableMode(mode)
	var run1 cdcRun
	q := e.startCDC("ck", 250, true, &run1)
	for q.IsActive() {
		if p := q.LastProgress(); p != nil && p.BatchID >= 3 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	ps := q.RecentProgress()
	last := ps[len(ps)-1].BatchID
	ck := filepath.Join(e.home, "ck", "ck")
	if err := os.Remove(filepath.Join(ck, "commits", fmt.Sprint(last))); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(ck, "offsets", fmt.Sprint(last+1)))
	var run2 cdcRun
	q2 := e.startCDC("ck", 250, true, &run2)
	if err := q2.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if p := q2.RecentProgress(); p[0].BatchID != last {
		t.Fatalf("restart began at batch %d, want the replay of %d", p[0].BatchID, last)
	}
	// The replayed batch is skipped; so is the batch Stop abandoned after
	// its merge committed, if any (it is planned again with the same range).
	if len(run2.skipped) == 0 || run2.skipped[0] != last || len(run2.skipped) > 2 {
		t.Fatalf("the restart skipped the merges of batches %v, want the replayed batch %d first", run2.skipped, last)
	}
	diffCDC(t, readCDCTable(t, e.session), referenceCDC(t, e.readCDCTopic(cdcConfig(0).Count)))
	// Every merge snapshot of the query carries a distinct batch id.
	lh, _ := e.session.Lakehouse(context.Background())
	tbl, err := lh.LoadTable(context.Background(), cdcTable)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, sn := range tbl.Snapshots() {
		if sn.QueryID() != q.ID() {
			continue
		}
		b, _ := sn.BatchID()
		if seen[b] {
			t.Fatalf("batch %d committed twice", b)
		}
		seen[b] = true
	}
	if len(seen) < 4 {
		t.Fatalf("only %d merge snapshots carry the query id", len(seen))
	}
}

// TestCDCMergeWithoutReductionHitsCardinality runs the merge on raw
// micro-batches: the first batch, which inserts a new key twice (Spark
// would silently insert both), stops the query with the duplicate-insert
// guard, naming the key and the fix; the table stays empty.
func TestCDCMergeWithoutReductionHitsCardinality(t *testing.T) {
	e := newEnv(t)
	e.produceCDC(cdcConfig(2))
	e.createCDCTable()
	var run cdcRun
	q := e.startCDC("raw", 300, false, &run)
	err := q.AwaitTermination()
	if err == nil || !strings.Contains(err.Error(), "batch 0:") || !strings.Contains(err.Error(), "MERGE_DUPLICATE_INSERT") || !strings.Contains(err.Error(), "invoice=") || !strings.Contains(err.Error(), "LatestPerKey") {
		t.Fatalf("want the first batch to fail with a duplicate insert naming the key, got %v", err)
	}
	if rows := readCDCTable(t, e.session); len(rows) != 0 {
		t.Fatalf("the refused batch left %d rows in the table", len(rows))
	}
}

// TestOnlineRetailCDCScenario runs scenario 2 exactly as `atlas run cdc`
// does (scenarios.StartOnlineRetailCDC: the notebook's server-side
// foreachBatch statements, the latest change per key by its time merged),
// twice from one checkpoint: the table equals
// the Kafka-order reference, and the second run merges nothing.
func TestOnlineRetailCDCScenario(t *testing.T) {
	e := newEnv(t)
	cfg := cdcConfig(7)
	e.produceCDC(cfg)
	opts := scenarios.CDCOptions{
		MaxOffsetsPerTrigger: 200,
		Checkpoint:           filepath.Join(e.home, "ck", "scenario"),
		Trigger:              engine.AvailableNow(),
	}
	var first scenarios.MergeTotals
	q, err := scenarios.StartOnlineRetailCDC(e.session, opts, &first)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	want := referenceCDC(t, e.readCDCTopic(cfg.Count))
	diffCDC(t, readCDCTable(t, e.session), want)
	got := first.Snapshot()
	if got.Batches < 5 || got.Skipped != 0 || got.Inserted-got.Deleted != int64(len(want)) {
		t.Fatalf("first run: %s; want >= 5 merges, none skipped, inserted-deleted = %d live keys", first.String(), len(want))
	}
	// The live view's per-batch writes: one merge per batch, in batch
	// order, adding up to the callback's own totals.
	ws := q.RecentWrites()
	if int64(len(ws)) != min(got.Batches, 10) {
		t.Fatalf("%d recent writes for %d batches", len(ws), got.Batches)
	}
	var ins, del int64
	for i, w := range ws {
		if w.Op != "merge" || w.Table != scenarios.SilverTable || (i > 0 && w.BatchID != ws[i-1].BatchID+1) {
			t.Fatalf("write %d: %s", i, w)
		}
		ins, del = ins+w.Inserted, del+w.Deleted
	}
	if got.Batches <= 10 && (ins != got.Inserted || del != got.Deleted) {
		t.Fatalf("recent writes add up to %d inserted, %d deleted; the callback counted %d, %d", ins, del, got.Inserted, got.Deleted)
	}

	var second scenarios.MergeTotals
	q, err = scenarios.StartOnlineRetailCDC(e.session, opts, &second)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if s := second.Snapshot(); s.Affected != 0 || q.Totals().InputRows != 0 {
		t.Fatalf("second run from the same checkpoint: %s, %d rows in; want nothing", second.String(), q.Totals().InputRows)
	}
	diffCDC(t, readCDCTable(t, e.session), want)
}

// TestCDCMalformedRecordsAreCountedAndSkipped mixes unparsable values into
// the change stream: the query neither stops nor merges them, counts each
// one (numMalformedRows), and the table equals the reference of the valid
// changes.
func TestCDCMalformedRecordsAreCountedAndSkipped(t *testing.T) {
	e := newEnv(t)
	cfg := cdcConfig(9)
	e.produceCDC(cfg)
	// Unparsable values: counted as malformed. An empty value is not: as
	// in Spark, from_json of "" is a null row without a parse error; it is
	// skipped all the same (its op is null, so no MERGE clause applies).
	bad := []string{"not json", `{"op":"u","invoice":`, `[1,2]`, `{"op":"u"`}
	empty := 1
	cl, err := stack.NewClient([]string{e.brokers})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range append(bad, "") {
		r := &kgo.Record{Topic: produce.DefaultCDCTopic, Key: []byte(fmt.Sprint("bad", i)), Value: []byte(v)}
		if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cl.Close()
	var totals scenarios.MergeTotals
	q, err := scenarios.StartOnlineRetailCDC(e.session, scenarios.CDCOptions{
		MaxOffsetsPerTrigger: 300, Checkpoint: filepath.Join(e.home, "ck", "malformed"), Trigger: engine.AvailableNow(),
	}, &totals)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatalf("malformed records stopped the query: %v", err)
	}
	if got := q.Totals().Malformed; got != int64(len(bad)) {
		t.Fatalf("counted %d malformed records, produced %d", got, len(bad))
	}
	diffCDC(t, readCDCTable(t, e.session), referenceCDC(t, e.readCDCTopic(cfg.Count+int64(len(bad)+empty))))
}
