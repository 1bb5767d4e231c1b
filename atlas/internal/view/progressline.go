package view

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// ProgressLine summarises one micro-batch on one line for a terminal, e.g.
//
//	[events] batch 12 | 48,000 rows | in 52,310/s | proc 410,220/s | 118 ms | wm 2026-11-30 10:40:00 | state 36 rows | late 12
//
// The name is the query name (else the first 8 characters of its id); rows
// are the batch's input rows; rates are rounded (one decimal below 100/s);
// the duration is durationMs.triggerExecution (else batchDuration). The
// watermark part appears only when the query has a watermark that has
// moved, the state and late parts (rows held in state, rows dropped by the
// watermark in this batch) only when it has stateful operators, and
// "malformed N", "null-time N" and "future N" only when
// observedMetrics.numMalformedRows, numRowsWithNullEventTime and
// numRowsWithFutureEventTime are positive; "data loss <partition> [from,
// to)..." only when a source skipped records that were gone
// (sources[].dataLoss). A batch that moved the watermark past its
// processing time ends with "WARNING " and the watermarkWarning message.
func ProgressLine(p progress.StreamingQueryProgress) string {
	parts := []string{
		"[" + queryLabel(&p) + "] batch " + strconv.FormatInt(p.BatchID, 10),
		numfmt.Group(p.NumInputRows) + " rows",
		"in " + formatRate(p.InputRowsPerSecond) + "/s",
		"proc " + formatRate(p.ProcessedRowsPerSecond) + "/s",
		numfmt.Group(p.TriggerMs()) + " ms",
	}
	if wm, ok := watermarkOf(&p); ok {
		parts = append(parts, "wm "+formatUTC(wm))
	}
	if len(p.StateOperators) > 0 {
		rows, dropped := p.StateTotals()
		parts = append(parts, "state "+numfmt.Group(rows)+" rows", "late "+numfmt.Group(dropped))
	}
	for _, m := range []struct{ key, label string }{
		{"numMalformedRows", "malformed "},
		{progress.MetricNullEventTime, "null-time "},
		{progress.MetricFutureEventTime, "future "},
	} {
		if n := p.ObservedMetrics[m.key]; n > 0 {
			parts = append(parts, m.label+numfmt.Group(n))
		}
	}
	var lost []string
	for _, src := range p.Sources {
		for _, d := range src.DataLoss {
			to := "end of the deleted topic"
			if d.ToOffset >= 0 {
				to = strconv.FormatInt(d.ToOffset, 10)
			}
			lost = append(lost, d.Partition+" ["+strconv.FormatInt(d.FromOffset, 10)+", "+to+")")
		}
	}
	if len(lost) > 0 {
		parts = append(parts, "data loss "+strings.Join(lost, ", "))
	}
	if w := p.WatermarkWarning; w != nil {
		parts = append(parts, "WARNING "+w.Message)
	}
	return strings.Join(parts, " | ")
}

// queryLabel names the query: its name, else its id's first 8 characters,
// else "query".
func queryLabel(p *progress.StreamingQueryProgress) string {
	switch {
	case p.Name != "":
		return p.Name
	case len(p.ID) > 8:
		return p.ID[:8]
	case p.ID != "":
		return p.ID
	}
	return "query"
}

// watermarkOf returns the batch's watermark unless it is unset or still the
// Unix epoch Spark reports before the watermark first moves.
func watermarkOf(p *progress.StreamingQueryProgress) (time.Time, bool) {
	wm := p.Watermark()
	if wm.IsZero() || wm.UnixMilli() == 0 {
		return time.Time{}, false
	}
	return wm, true
}

// formatUTC formats t as Spark shows timestamps: "2006-01-02 15:04:05" in
// UTC (with fractional seconds only when present).
func formatUTC(t time.Time) string { return numfmt.Timestamp(t) }

// formatRate formats a rows-per-second rate: whole and thousands-grouped
// from 100/s up, one decimal below.
func formatRate(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "0"
	}
	if math.Abs(r) >= 100 || r == math.Trunc(r) {
		return numfmt.Group(int64(math.Round(r)))
	}
	return strconv.FormatFloat(r, 'f', 1, 64)
}
