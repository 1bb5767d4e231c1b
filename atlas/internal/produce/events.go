package produce

import (
	"fmt"
	"time"
)

// Event is one user event as its JSON value is written to Kafka:
//
//	{"user_id":"u042","event":"click","ts":"2026-11-30T10:15:30.123Z"}
//
// TS is the event time in TimeLayout. Tests decode record values into Event
// with encoding/json.
type Event struct {
	UserID string `json:"user_id"`
	Event  string `json:"event"`
	TS     string `json:"ts"`
}

// eventNames is the vocabulary of Event.Event, most frequent first, and
// eventWeights their relative frequencies.
var (
	eventNames   = [...]string{"view", "click", "search", "add_to_cart", "login", "purchase"}
	eventWeights = [...]float64{45, 25, 12, 8, 6, 4}
)

// EventNames returns the vocabulary of Event.Event, most frequent first. The
// generator draws them with a skewed distribution: view 45%, click 25%,
// search 12%, add_to_cart 8%, login 6%, purchase 4%.
func EventNames() []string { return append([]string(nil), eventNames[:]...) }

// Intent says what the generator meant a record to be. It is for summaries
// and sanity checks only: a reference result must apply watermark and
// deduplication rules to the data itself, not trust intents (an out-of-order
// record can land behind a watermark, a late one early in the stream can
// land in front of it).
type Intent uint8

const (
	// InOrder is a regular record whose event time does not go backwards.
	InOrder Intent = iota
	// OutOfOrder is a record whose event time is up to
	// EventsConfig.OutOfOrderMax behind the largest event time generated
	// before it (within a 10-minute watermark delay by default).
	OutOfOrder
	// Late is a record whose event time is between EventsConfig.LateMin and
	// LateMax behind the largest event time generated before it (beyond a
	// 10-minute watermark delay by default).
	Late
	// Duplicate is an exact copy (same key and value bytes) of one of the
	// recent non-duplicate, well-formed records, sent again.
	Duplicate
	// Malformed is a value that does not decode into Event: truncated JSON,
	// text that is not JSON, or a "ts" that is an array rather than a string.
	Malformed
)

// String names the intent: in_order, out_of_order, late, duplicate, malformed.
func (i Intent) String() string {
	switch i {
	case InOrder:
		return "in_order"
	case OutOfOrder:
		return "out_of_order"
	case Late:
		return "late"
	case Duplicate:
		return "duplicate"
	case Malformed:
		return "malformed"
	}
	return fmt.Sprintf("Intent(%d)", uint8(i))
}

// EventRecord is one generated Kafka record of the events stream.
type EventRecord struct {
	// Key is the Kafka record key: the user id.
	Key []byte
	// Value is the Kafka record value, exactly as sent.
	Value []byte
	// Event holds the fields Value encodes. For a Malformed record it holds
	// what a well-formed value would have carried.
	Event Event
	// Time is the event time encoded in Event.TS.
	Time time.Time
	// Intent is what the generator meant the record to be.
	Intent Intent
}

// DefaultEventsStart returns the event time of the first event when
// EventsConfig.Start is zero: 2026-11-30T10:00:00Z, fixed so runs reproduce.
func DefaultEventsStart() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }

const (
	// DefaultEventsTopic is the topic ProduceEvents writes to.
	DefaultEventsTopic = "events"
	// DefaultEventsSpan is the event-time span of the whole stream.
	DefaultEventsSpan = 2 * time.Hour
	// DefaultUsers is the number of distinct user ids.
	DefaultUsers = 100
	// DefaultOutOfOrderMax bounds how far an out-of-order event goes back.
	DefaultOutOfOrderMax = 3 * time.Minute
	// DefaultLateMin is the least a late event goes back: beyond a
	// 10-minute watermark delay and a 5-minute window.
	DefaultLateMin = 15 * time.Minute
	// DefaultLateMax is the most a late event goes back.
	DefaultLateMax = 40 * time.Minute
	// duplicateWindow is how many recent records a duplicate may copy.
	duplicateWindow = 64
)

// EventsConfig configures the events generator. Zero fields take the
// defaults documented on them; the fractions are independent probabilities
// per record and must sum to at most 1.
type EventsConfig struct {
	// Count is the number of records, duplicates and malformed ones included.
	Count int64
	// Seed selects the reproducible random stream.
	Seed int64
	// Start is the event time of the first event (DefaultEventsStart),
	// truncated to the millisecond.
	Start time.Time
	// Span is the event time covered by the whole stream (DefaultEventsSpan):
	// in-order event times rise from Start to Start+Span across the
	// sequence, so windows close within one run. Every event time, late and
	// out-of-order ones included, lies in [Start, Start+Span).
	Span time.Duration
	// Users is the number of distinct user ids, u000, u001, ... (DefaultUsers).
	Users int
	// OutOfOrder is the fraction of records whose event time goes back by up
	// to OutOfOrderMax (DefaultOutOfOrderMax), never before Start (a record
	// drawn out of order at the very start stays in order).
	OutOfOrder    float64
	OutOfOrderMax time.Duration
	// Late is the fraction of records whose event time goes back between
	// LateMin and LateMax (DefaultLateMin, DefaultLateMax), never before
	// Start (a record drawn late in the stream's first LateMin stays in
	// order). So every event time lies in [Start, Start+Span).
	Late             float64
	LateMin, LateMax time.Duration
	// Duplicates is the fraction of records that re-send one of the last 64
	// original records byte for byte.
	Duplicates float64
	// Malformed is the fraction of records whose value does not decode.
	Malformed float64
	// Topic is the topic ProduceEvents writes to (DefaultEventsTopic).
	Topic string
	// Rate caps ProduceEvents at this many records per second; 0 means as
	// fast as possible. Generation ignores it.
	Rate float64
}

// withDefaults returns c with zero fields replaced by defaults, or an error
// naming the first invalid field.
func (c EventsConfig) withDefaults() (EventsConfig, error) {
	if c.Start.IsZero() {
		c.Start = DefaultEventsStart()
	}
	c.Start = c.Start.UTC().Truncate(time.Millisecond)
	if c.Span == 0 {
		c.Span = DefaultEventsSpan
	}
	if c.Users == 0 {
		c.Users = DefaultUsers
	}
	if c.OutOfOrderMax == 0 {
		c.OutOfOrderMax = DefaultOutOfOrderMax
	}
	if c.LateMin == 0 && c.LateMax == 0 {
		c.LateMin, c.LateMax = DefaultLateMin, DefaultLateMax
	}
	if c.Topic == "" {
		c.Topic = DefaultEventsTopic
	}
	switch {
	case c.Count < 0:
		return c, fmt.Errorf("events config: count %d is negative", c.Count)
	case c.Span < 0:
		return c, fmt.Errorf("events config: span %s is negative", c.Span)
	case c.Users < 0:
		return c, fmt.Errorf("events config: users %d is negative", c.Users)
	case c.OutOfOrderMax < 0:
		return c, fmt.Errorf("events config: out-of-order bound %s is negative", c.OutOfOrderMax)
	case c.LateMin < 0 || c.LateMax < c.LateMin:
		return c, fmt.Errorf("events config: late range [%s, %s] is not a range of positive durations", c.LateMin, c.LateMax)
	case c.Rate < 0:
		return c, fmt.Errorf("events config: rate %g is negative", c.Rate)
	}
	fractions := []struct {
		name string
		v    float64
	}{{"out-of-order", c.OutOfOrder}, {"late", c.Late}, {"duplicates", c.Duplicates}, {"malformed", c.Malformed}}
	var sum float64
	for _, f := range fractions {
		if f.v < 0 || f.v > 1 {
			return c, fmt.Errorf("events config: %s fraction %g is outside [0, 1]", f.name, f.v)
		}
		sum += f.v
	}
	if sum > 1 {
		return c, fmt.Errorf("events config: fractions out-of-order+late+duplicates+malformed sum to %g, more than 1", sum)
	}
	return c, nil
}
