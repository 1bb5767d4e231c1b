package exec

import "time"

// TriggerKind says when micro-batches run.
type TriggerKind int

const (
	// TriggerDefault runs the next batch as soon as the previous one ends
	// and new data is available (Spark's default trigger).
	TriggerDefault TriggerKind = iota
	// TriggerProcessingTime starts a batch every Interval.
	TriggerProcessingTime
	// TriggerAvailableNow processes all data available at start, in as many
	// batches as the read limits need, then stops.
	TriggerAvailableNow
	// TriggerOnce processes all data available at start in one batch, then stops.
	TriggerOnce
)

// Trigger is a query's trigger.
type Trigger struct {
	Kind     TriggerKind
	Interval time.Duration
}

func (t Trigger) String() string {
	switch t.Kind {
	case TriggerProcessingTime:
		return "ProcessingTime(" + t.Interval.String() + ")"
	case TriggerAvailableNow:
		return "AvailableNow"
	case TriggerOnce:
		return "Once"
	}
	return "Default"
}

// idleDelay is how long the default trigger waits before polling a source
// that had no new data.
const idleDelay = 100 * time.Millisecond
