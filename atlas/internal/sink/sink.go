// Package sink defines where a streaming query's output goes. A sink gets
// each micro-batch's output as Arrow records together with the batch id, and
// must be idempotent per (query id, batch id): after a crash the executor
// replays the last batch, and a sink that already committed it does nothing.
package sink

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// OutputMode says which rows of a stateful query's result a batch emits, as
// in Spark: Append emits only rows that will never change again (closed
// windows), Update emits the rows changed by the batch, Complete emits the
// whole result every batch.
type OutputMode string

// The output modes.
const (
	Append   OutputMode = "append"
	Update   OutputMode = "update"
	Complete OutputMode = "complete"
)

// ParseOutputMode accepts the mode names Spark accepts, in any case.
func ParseOutputMode(s string) (OutputMode, error) {
	switch m := OutputMode(strings.ToLower(s)); m {
	case Append, Update, Complete:
		return m, nil
	}
	return "", fmt.Errorf("unknown output mode %q: use \"append\", \"update\" or \"complete\"", s)
}

// Batch is one micro-batch's output handed to a sink.
type Batch struct {
	// QueryID is the stable id of the query (survives restarts).
	QueryID string
	// BatchID is the micro-batch id.
	BatchID int64
	// Mode is the query's output mode.
	Mode OutputMode
	// Schema is the output schema; every record has it.
	Schema *arrow.Schema
	// Records are the rows. The sink must not release them.
	Records []arrow.RecordBatch
}

// NumRows counts the rows in the batch.
func (b *Batch) NumRows() int64 {
	var n int64
	for _, r := range b.Records {
		n += r.NumRows()
	}
	return n
}

// Sink receives micro-batch output.
type Sink interface {
	// Description names the sink in progress reports.
	Description() string
	// AddBatch writes one batch. It must be idempotent: when the batch with
	// this (QueryID, BatchID) was already committed it returns nil and writes
	// nothing.
	AddBatch(ctx context.Context, b *Batch) error
}

// MetricsReporter is implemented by sinks with per-batch metrics of their
// own (Spark's SinkProgress.metrics): the query puts what BatchMetrics
// returns for a batch into that batch's progress, after AddBatch returned.
type MetricsReporter interface {
	BatchMetrics(batchID int64) map[string]string
}

// ModeChecker is implemented by sinks that support only some output modes;
// the query fails at Start with the returned error.
type ModeChecker interface {
	CheckMode(m OutputMode) error
}
