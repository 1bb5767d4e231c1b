package engine

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
)

// queryExplain is what a query knows of its plan for Explain.
type queryExplain struct {
	plan    string
	sink    string
	mode    sink.OutputMode
	trigger exec.Trigger
}

// ExplainString renders the query's plan, as query.explain(extended): the
// logical plan of the streaming DataFrame and where it writes; extended
// adds the incremental execution: the latest batch, its watermark, its
// source offsets and its state operators.
func (sq *StreamingQuery) ExplainString(extended bool) string {
	var b strings.Builder
	e := sq.explain
	fmt.Fprintf(&b, "== Streaming Query ==\nid = %s, runId = %s, name = %s\n", sq.ID(), sq.RunID(), orNone(sq.name))
	fmt.Fprintf(&b, "sink = %s, outputMode = %s, trigger = %s, checkpoint = %s\n", e.sink, e.mode, e.trigger, sq.CheckpointLocation())
	b.WriteString("== Logical Plan ==\n")
	b.WriteString(e.plan)
	if !strings.HasSuffix(e.plan, "\n") {
		b.WriteString("\n")
	}
	if !extended {
		return b.String()
	}
	b.WriteString("== Incremental Execution ==\n")
	p := sq.LastProgress()
	if p == nil {
		b.WriteString("no batch has run yet in this run\n")
		return b.String()
	}
	fmt.Fprintf(&b, "batchId = %d, next batch = %d\n", p.BatchID, p.BatchID+1)
	if wm := p.EventTime["watermark"]; wm != "" {
		fmt.Fprintf(&b, "watermark = %s\n", wm)
	}
	for _, s := range p.Sources {
		fmt.Fprintf(&b, "source %s: startOffset = %s, endOffset = %s, numInputRows = %d\n", s.Description, compact(s.StartOffset), compact(s.EndOffset), s.NumInputRows)
	}
	for _, op := range p.StateOperators {
		fmt.Fprintf(&b, "state operator %s: numRowsTotal = %d, numRowsUpdated = %d, numRowsDroppedByWatermark = %d\n", op.OperatorName, op.NumRowsTotal, op.NumRowsUpdated, op.NumRowsDroppedByWatermark)
	}
	if len(p.ObservedMetrics) > 0 {
		keys := make([]string, 0, len(p.ObservedMetrics))
		for k := range p.ObservedMetrics {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "observed %s = %d\n", k, p.ObservedMetrics[k])
		}
	}
	fmt.Fprintf(&b, "sink %s: numOutputRows = %d\n", p.Sink.Description, p.Sink.NumOutputRows)
	return b.String()
}

// Explain prints ExplainString(extended), as query.explain(extended).
func (sq *StreamingQuery) Explain(extended bool) { fmt.Print(sq.ExplainString(extended)) }

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func compact(v json.RawMessage) string {
	if len(v) == 0 {
		return "null"
	}
	return string(v)
}
