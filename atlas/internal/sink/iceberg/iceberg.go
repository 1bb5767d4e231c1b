// Package iceberg is the streaming sink that writes micro-batches to an
// Apache Iceberg table, exactly once: each commit records the query id and
// batch id in the snapshot summary, and a batch replayed after a crash that
// had already committed is skipped (as Iceberg's Spark sink does with
// spark.sql.streaming.queryId and epochId).
package iceberg

import (
	"context"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
)

// Sink appends (append and update modes are not mixed: update is refused)
// or overwrites (complete mode) one table.
type Sink struct {
	table *lakehouse.Table
	name  string
	// Skipped counts replayed batches found already committed.
	Skipped int64
}

// Open loads the table, creating it from the query's output schema when it
// does not exist (as DataStreamWriter.toTable does).
func Open(ctx context.Context, lh *lakehouse.Lakehouse, name string, schema *arrow.Schema) (*Sink, error) {
	t, err := lh.CreateTable(ctx, name, schema, lakehouse.CreateOptions{IfNotExists: true})
	if err != nil {
		return nil, fmt.Errorf("iceberg sink: %w", err)
	}
	return &Sink{table: t, name: name}, nil
}

// Table returns the target table.
func (s *Sink) Table() *lakehouse.Table { return s.table }

// Description implements sink.Sink.
func (s *Sink) Description() string { return "IcebergSink[" + s.name + "]" }

// CheckMode implements sink.ModeChecker: Iceberg takes append and complete.
func (s *Sink) CheckMode(m sink.OutputMode) error { return CheckMode(m) }

// CheckMode refuses the output modes the Iceberg sink does not take
// (update), before any table exists.
func CheckMode(m sink.OutputMode) error {
	if m == sink.Update {
		return fmt.Errorf("output mode update is not supported by the iceberg sink (rows would be appended again each time they change): use append with a watermark, complete, or ForeachBatch with MERGE INTO to upsert")
	}
	return nil
}

// AddBatch implements sink.Sink. An append-mode batch without rows commits
// no snapshot: the query's commit log records the batch, and a replay of
// it has no rows to write either, so the table's history (and its
// metadata) grows only with batches that wrote something. A complete-mode
// batch always commits, since its zero rows replace the table's.
func (s *Sink) AddBatch(ctx context.Context, b *sink.Batch) error {
	if b.Mode != sink.Complete && b.NumRows() == 0 {
		return nil
	}
	c := lakehouse.Commit{QueryID: b.QueryID, BatchID: b.BatchID}
	var (
		committed bool
		err       error
	)
	if b.Mode == sink.Complete {
		committed, err = s.table.OverwriteBatch(ctx, b.Records, c)
	} else {
		committed, err = s.table.AppendBatch(ctx, b.Records, c)
	}
	if err != nil {
		return err
	}
	if !committed {
		s.Skipped++
	}
	return nil
}

// Keys of the Iceberg sink's SinkProgress.metrics (Spark's custom sink
// metrics, as strings): what the server's automatic table maintenance
// (lakehouse.StartMaintenance) has done to the table since the server
// started. Absent until maintenance first ran on the table.
const (
	MetricMaintenanceRuns     = "maintenanceRuns"
	MetricMaintenanceErrors   = "maintenanceErrors"
	MetricSnapshotsExpired    = "snapshotsExpired"
	MetricManifestsRewritten  = "manifestsRewritten"
	MetricDataFilesCompacted  = "dataFilesCompacted"
	MetricDeleteFilesFolded   = "dataFilesWithDeletesFolded"
	MetricCompactionConflicts = "compactionConflicts"
	// MetricConcurrentFolds counts compaction bins written again at commit
	// to fold the deletes MERGEs committed against them meanwhile.
	MetricConcurrentFolds       = "compactionConcurrentFolds"
	MetricOrphanFilesRemoved    = "orphanFilesRemoved"
	MetricLastMaintenanceMillis = "lastMaintenanceDurationMs"
)

// BatchMetrics implements sink.MetricsReporter: the table's maintenance
// totals (see MetricMaintenanceRuns), nil before maintenance ran on it.
func (s *Sink) BatchMetrics(int64) map[string]string {
	st, ok := s.table.MaintenanceStats()
	if !ok {
		return nil
	}
	return MaintenanceMetrics(st)
}

// MaintenanceMetrics returns the sink metrics (MetricMaintenanceRuns and
// the others) of maintenance totals st: the Iceberg sink's, and those of
// a foreachBatch query for the tables its function writes.
func MaintenanceMetrics(st lakehouse.MaintenanceStats) map[string]string {
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	return map[string]string{
		MetricMaintenanceRuns:       i(st.Runs),
		MetricMaintenanceErrors:     i(st.Errors),
		MetricSnapshotsExpired:      i(st.SnapshotsExpired),
		MetricManifestsRewritten:    i(st.ManifestsReplaced),
		MetricDataFilesCompacted:    i(st.FilesCompacted),
		MetricDeleteFilesFolded:     i(st.FilesWithDeletesFolded),
		MetricCompactionConflicts:   i(st.CompactConflicts),
		MetricConcurrentFolds:       i(st.ConcurrentFolds),
		MetricOrphanFilesRemoved:    i(st.OrphansRemoved),
		MetricLastMaintenanceMillis: i(st.Last.Duration.Milliseconds()),
	}
}
