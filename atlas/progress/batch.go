package progress

// TriggerMs is the whole trigger's duration in milliseconds:
// durationMs.triggerExecution, or batchDuration when the phase map lacks it.
func (p *StreamingQueryProgress) TriggerMs() int64 {
	if v, ok := p.DurationMs["triggerExecution"]; ok {
		return v
	}
	return p.BatchDuration
}

// StateTotals returns the rows held by all the batch's stateful operators
// and the rows they dropped as later than the watermark.
func (p *StreamingQueryProgress) StateTotals() (rows, dropped int64) {
	for _, op := range p.StateOperators {
		rows += op.NumRowsTotal
		dropped += op.NumRowsDroppedByWatermark
	}
	return rows, dropped
}

// EventTimeCounts returns the batch's rows without an event time and its
// rows further ahead of processing time than the bound (observedMetrics
// numRowsWithNullEventTime and numRowsWithFutureEventTime).
func (p *StreamingQueryProgress) EventTimeCounts() (nullTime, future int64) {
	return p.ObservedMetrics[MetricNullEventTime], p.ObservedMetrics[MetricFutureEventTime]
}
