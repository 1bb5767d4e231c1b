package engine

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
)

// Trigger says when micro-batches run, as DataStreamWriter.trigger.
type Trigger struct {
	t   exec.Trigger
	err error
}

// ProcessingTime starts a micro-batch every interval ("10 seconds" or a
// time.Duration), as trigger(processingTime=...).
func ProcessingTime(interval any) Trigger {
	d, err := toDuration(interval)
	if err == nil && d <= 0 {
		err = fmt.Errorf("processing-time interval must be positive, got %s", d)
	}
	return Trigger{t: exec.Trigger{Kind: exec.TriggerProcessingTime, Interval: d}, err: err}
}

// AvailableNow processes everything available when the query starts, in
// as many micro-batches as maxOffsetsPerTrigger allows, then stops, as
// trigger(availableNow=True). AwaitTermination then returns.
func AvailableNow() Trigger { return Trigger{t: exec.Trigger{Kind: exec.TriggerAvailableNow}} }

// Once processes everything available in a single micro-batch, then stops.
func Once() Trigger { return Trigger{t: exec.Trigger{Kind: exec.TriggerOnce}} }
