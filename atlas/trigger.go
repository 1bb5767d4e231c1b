package atlas

import "fmt"

// Trigger says when micro-batches run, as DataStreamWriter.trigger.
type Trigger struct {
	kind     triggerKind
	interval string
	err      error
}

type triggerKind int

const (
	triggerDefault triggerKind = iota
	triggerProcessingTime
	triggerAvailableNow
	triggerOnce
)

// ProcessingTime starts a micro-batch every interval ("10 seconds" or a
// time.Duration), as trigger(processingTime=...).
func ProcessingTime(interval any) Trigger {
	s, err := intervalString(interval)
	if err != nil {
		err = fmt.Errorf("processing-time trigger: %w", err)
	}
	return Trigger{kind: triggerProcessingTime, interval: s, err: err}
}

// AvailableNow processes everything available when the query starts, in
// as many micro-batches as maxOffsetsPerTrigger allows, then stops, as
// trigger(availableNow=True). AwaitTermination then returns.
func AvailableNow() Trigger { return Trigger{kind: triggerAvailableNow} }

// Once processes everything available in a single micro-batch, then stops.
func Once() Trigger { return Trigger{kind: triggerOnce} }
