package scenarios

import (
	"context"
	"fmt"
	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"sync"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
)

// CDCTopic is the Kafka topic scenario 2 reads.
const CDCTopic = produce.DefaultCDCTopic

// SilverTable is where scenario 2 merges the changes.
const SilverTable = "lakehouse.silver.online_retail_cdc"

// ChangeSchema is the DDL schema of one change's JSON value: the Online
// Retail order line plus the change's operation ("c", "u", "d") and time.
const ChangeSchema = "op string, invoice string, stock_code string, quantity int, price double, CustomerID double, Country string, ts timestamp"

// CreateSilver creates SilverTable when it does not exist, merge-on-read:
// each micro-batch's MERGE writes position deletes and one data file
// instead of rewriting every data file holding a changed key.
const CreateSilver = `CREATE TABLE IF NOT EXISTS lakehouse.silver.online_retail_cdc (
  invoice string, stock_code string, quantity int, price double,
  CustomerID double, Country string, ts timestamp
) USING iceberg TBLPROPERTIES ('write.merge.mode' = 'merge-on-read')`

// MergeChanges applies the temp view "updates" (one change per key) to
// SilverTable: the same MERGE INTO a batch upsert runs.
const MergeChanges = `MERGE INTO lakehouse.silver.online_retail_cdc t
USING updates u
ON t.invoice = u.invoice AND t.stock_code = u.stock_code
WHEN MATCHED AND u.op = 'd' THEN DELETE
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED AND u.op != 'd' THEN INSERT *`

// CDCBatchView is the temp view each micro-batch is published as for
// CDCStatements (a server-side foreachBatch, ForeachBatchSQL).
const CDCBatchView = "changes"

// MergeLatestChanges is scenario 2's per-batch work in SQL over the view
// CDCBatchView: the latest change of each order line (the change with the
// key's greatest ts: a change's ts is strictly increasing per key), merged
// into SilverTable with MergeChanges's clauses. Two changes of one key
// with one ts would both match: MERGE then fails the batch loudly
// (MERGE_CARDINALITY_VIOLATION), never picks one silently. The notebook's
// mergeLatestChanges is this text, character for character: the
// checkpoint records the statements, and a start with others is refused.
const MergeLatestChanges = `MERGE INTO lakehouse.silver.online_retail_cdc t
USING (
  SELECT c.* FROM changes c
  JOIN (SELECT invoice, stock_code, max(ts) AS ts FROM changes GROUP BY invoice, stock_code) latest
    ON c.invoice = latest.invoice AND c.stock_code = latest.stock_code AND c.ts = latest.ts
) u
ON t.invoice = u.invoice AND t.stock_code = u.stock_code
WHEN MATCHED AND u.op = 'd' THEN DELETE
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED AND u.op != 'd' THEN INSERT *`

// CDCStatements are the statements of scenario 2's server-side
// foreachBatch, as `atlas run cdc` and the notebook start it.
var CDCStatements = []string{MergeLatestChanges}

// CDCQueryName names scenario 2's query and, under the checkpoint root,
// its checkpoint: the notebook's and `atlas run cdc`'s.
const CDCQueryName = "online_retail_cdc"

// CDCKeys is the composite key of an order line.
var CDCKeys = []string{"invoice", "stock_code"}

// CDCData is the change stream the notebook's Setup cell and `atlas run
// cdc` produce into an empty topic; both must produce the same stream so
// either can verify against produce.GenerateCDC(CDCData).
var CDCData = produce.CDCConfig{Count: 50_000, Seed: 1, UpdateFraction: 0.3, DeleteFraction: 0.05, Topic: CDCTopic}

// CDCOptions configures scenario 2.
type CDCOptions struct {
	// Topic is the Kafka topic (default CDCTopic).
	Topic string
	// MaxOffsetsPerTrigger bounds a micro-batch (0 = unbounded).
	MaxOffsetsPerTrigger int64
	// Checkpoint is the checkpoint location ("" = the session's default for
	// the query name "online_retail_cdc", the one the notebook uses too).
	Checkpoint string
	// Trigger is the query's trigger; the zero value is Spark's default
	// (a micro-batch as soon as data arrives, until stopped). The CLI and
	// the notebook use AvailableNow.
	Trigger engine.Trigger
	// Progress prints (or, in a notebook, draws) the query's progress.
	Progress bool
}

// MergeTotals adds up the MERGE results of scenario 2's micro-batches.
type MergeTotals struct {
	mu sync.Mutex
	// Batches is the number of merges run; Skipped counts the ones a
	// replay found already committed.
	Batches, Skipped int64
	// Affected, Updated, Deleted and Inserted are Spark's MERGE metrics.
	Affected, Updated, Deleted, Inserted int64
}

// Snapshot returns a copy of the totals, safe to read while the query runs.
func (m *MergeTotals) Snapshot() MergeTotals {
	m.mu.Lock()
	defer m.mu.Unlock()
	return MergeTotals{Batches: m.Batches, Skipped: m.Skipped, Affected: m.Affected, Updated: m.Updated, Deleted: m.Deleted, Inserted: m.Inserted}
}

// String reads like the notebook's Write summary.
func (m *MergeTotals) String() string {
	t := m.Snapshot()
	return fmt.Sprintf("%d merges (%d skipped as already committed): %d rows affected (%d updated, %d deleted, %d inserted)",
		t.Batches, t.Skipped, t.Affected, t.Updated, t.Deleted, t.Inserted)
}

// ParseChanges decodes the Kafka value of each record as a change.
func ParseChanges(raw *engine.DataFrame) *engine.DataFrame {
	return raw.SelectExpr("CAST(value AS STRING) AS json").
		Select(engine.FromJSON(engine.Col("json"), ChangeSchema).Alias("c")).
		Select("c.*")
}

// Upsert is scenario 2's per-batch work as a Go foreachBatch function (the
// form the notebook teaches once, on its own checkpoint): it reduces the
// micro-batch to the latest change per order line, registers it as the
// temp view "updates" and runs MergeChanges, adding the counts to totals.
// StartOnlineRetailCDC runs the SQL form instead (CDCStatements); a
// checkpoint that form started refuses this one.
func Upsert(s *engine.Session, totals *MergeTotals) func(batch *engine.DataFrame, batchID int64) error {
	return func(batch *engine.DataFrame, batchID int64) error {
		reduced := batch.LatestPerKey(CDCKeys, "ts")
		if err := reduced.CreateOrReplaceTempView("updates"); err != nil {
			return fmt.Errorf("batch %d: view updates: %w", batchID, err)
		}
		res, err := s.SQL(MergeChanges)
		if err != nil {
			return fmt.Errorf("batch %d: merge: %w", batchID, err)
		}
		if err := countMerge(totals, res); err != nil {
			return fmt.Errorf("batch %d: %w", batchID, err)
		}
		return nil
	}
}

// countMerge adds one MERGE result to totals.
func countMerge(totals *MergeTotals, res *engine.DataFrame) error {
	rows, err := res.Rows(context.Background())
	if err != nil {
		return fmt.Errorf("merge result: %w", err)
	}
	totals.mu.Lock()
	defer totals.mu.Unlock()
	totals.Batches++
	for _, r := range rows {
		n := func(c string) int64 { v, _ := r[c].(int64); return v }
		totals.Affected += n("num_affected_rows")
		totals.Updated += n("num_updated_rows")
		totals.Deleted += n("num_deleted_rows")
		totals.Inserted += n("num_inserted_rows")
	}
	if res.Schema().Metadata().FindKey("atlas.note") >= 0 {
		totals.Skipped++
	}
	return nil
}

// StartOnlineRetailCDC creates SilverTable when missing and starts scenario
// 2: changes from Kafka, each micro-batch published as the view
// CDCBatchView and CDCStatements run over it (the latest change per key,
// merged into SilverTable), exactly once per micro-batch. It is the
// notebook's query, in the same form (ForeachBatchSQL) and with the same
// statements, so either continues the other's checkpoint; totals add up
// the MERGE counts.
func StartOnlineRetailCDC(s *engine.Session, o CDCOptions, totals *MergeTotals) (*engine.StreamingQuery, error) {
	if o.Topic == "" {
		o.Topic = CDCTopic
	}
	if _, err := s.SQL(CreateSilver); err != nil {
		return nil, fmt.Errorf("create %s: %w", SilverTable, err)
	}
	r := s.ReadStream().Format("kafka").
		Option("subscribe", o.Topic).
		Option("startingOffsets", "earliest")
	if o.MaxOffsetsPerTrigger > 0 {
		r = r.Option("maxOffsetsPerTrigger", o.MaxOffsetsPerTrigger)
	}
	w := ParseChanges(r.Load()).WriteStream().
		QueryName(CDCQueryName).
		Option(checkpoint.OptionID, CDCCheckpointID).
		Option(checkpoint.OptionOwner, CheckpointOwner).
		Option(checkpoint.OptionClassification, DurableStream).
		ForeachBatchSQL(CDCBatchView, CDCStatements, func(_ int64, _ int, res *engine.DataFrame) error {
			return countMerge(totals, res)
		}).
		Trigger(o.Trigger).
		Progress(o.Progress)
	if o.Checkpoint != "" {
		w = w.Option("checkpointLocation", o.Checkpoint)
	}
	return w.Start()
}
