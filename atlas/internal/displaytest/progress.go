// Package displaytest holds the fixtures of the display packages' tests
// (atlas/display, view, progresschart, the client's live view): progress
// lists whose numbers the tests recompute by hand, and a stand-in for the
// echarts bundle that records what a page asks of it.
package displaytest

import (
	"encoding/json"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// Sample returns 12 batches of a windowed aggregation over event
// time, with a watermark that stays at the epoch for the first two batches
// (as Spark reports it before it moves) and no event time in batch 5.
func Sample() []progress.StreamingQueryProgress {
	base := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var ps []progress.StreamingQueryProgress
	var dropped int64
	for i := int64(0); i < 12; i++ {
		maxT := base.Add(time.Duration(i) * 2 * time.Minute)
		wm := time.Unix(0, 0).UTC()
		if i >= 2 {
			wm = maxT.Add(-10 * time.Minute)
		}
		dropped = i % 3
		p := progress.StreamingQueryProgress{
			ID:                     "6f1c2d3e-0000-4000-8000-000000000001",
			RunID:                  "run-1",
			Name:                   "events",
			Timestamp:              progress.FormatTime(base.Add(time.Duration(i) * time.Second)),
			BatchID:                i,
			BatchDuration:          100 + 3*i,
			NumInputRows:           4000 + 10*i,
			InputRowsPerSecond:     50000.5 + float64(i)*100,
			ProcessedRowsPerSecond: 400000.25 + float64(i)*1000,
			DurationMs: map[string]int64{
				"latestOffset":     2,
				"getBatch":         1,
				"walCommit":        5 + i,
				"addBatch":         80 + 2*i,
				"commitOffsets":    4,
				"triggerExecution": 100 + 3*i,
			},
			EventTime: map[string]string{
				"max":       progress.FormatTime(maxT),
				"min":       progress.FormatTime(maxT.Add(-time.Minute)),
				"avg":       progress.FormatTime(maxT.Add(-30 * time.Second)),
				"watermark": progress.FormatTime(wm),
			},
			StateOperators: []progress.StateOperatorProgress{{
				OperatorName:              "stateStoreSave",
				NumRowsTotal:              30 + i,
				NumRowsDroppedByWatermark: dropped,
			}},
			Sources: []progress.SourceProgress{{Description: "KafkaV2[Subscribe[events]]",
				StartOffset: json.RawMessage(`{"events":{"0":0}}`), EndOffset: json.RawMessage(`{"events":{"0":10}}`),
				LatestOffset: json.RawMessage(`{"events":{"0":10}}`)}},
			Sink: progress.SinkProgress{Description: "iceberg"},
		}
		if i == 5 {
			p.EventTime = nil
		}
		ps = append(ps, p)
	}
	return ps
}

// Far is Sample with null and future event times counted
// in batches 3 (2 null), 7 (1 null, 4 future) and 9 (5 null), and the
// watermark dragged to year 294247 by batch 10, which carries the warning.
func Far() []progress.StreamingQueryProgress {
	ps := Sample()
	ps[3].ObservedMetrics = map[string]int64{progress.MetricNullEventTime: 2}
	ps[7].ObservedMetrics = map[string]int64{progress.MetricNullEventTime: 1, progress.MetricFutureEventTime: 4}
	ps[9].ObservedMetrics = map[string]int64{progress.MetricNullEventTime: 5}
	far := time.Date(294247, 1, 1, 0, 0, 0, 0, time.UTC)
	ps[10].WatermarkWarning = &progress.WatermarkWarning{
		MaxEventTime: progress.FormatTime(far), OldWatermark: ps[10].EventTime["watermark"],
		NewWatermark: progress.FormatTime(far.Add(-10 * time.Minute)), ProcessingTime: ps[10].Timestamp,
		Message: "batch 10: event time 294247-01-01T00:00:00.000Z moved the watermark",
	}
	ps[11].EventTime["watermark"] = progress.FormatTime(far.Add(-10 * time.Minute))
	ps[11].EventTime["max"] = progress.FormatTime(far)
	return ps
}
