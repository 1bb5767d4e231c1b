package produce

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// EventGenerator yields the records of an events stream one at a time, in
// the order ProduceEvents sends them. It holds only a small window of recent
// records, so streams of any length take constant memory. It is not safe for
// concurrent use.
type EventGenerator struct {
	cfg       EventsConfig
	r         *rand.Rand
	users     []string
	names     weighted
	next      int64     // index of the next record
	max       time.Time // largest event time of a well-formed record so far
	recent    [duplicateWindow]EventRecord
	nRecent   int // records (keys) held in recent
	recentPos int // where the next one goes
}

// NewEventGenerator validates cfg, applies its defaults and returns a
// generator positioned before the first record.
func NewEventGenerator(cfg EventsConfig) (*EventGenerator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	width := max(3, len(strconv.Itoa(cfg.Users-1)))
	users := make([]string, cfg.Users)
	for i := range users {
		users[i] = fmt.Sprintf("u%0*d", width, i)
	}
	return &EventGenerator{
		cfg:   cfg,
		r:     newRand(cfg.Seed, 0x6576656e7473), // "events"
		users: users,
		names: newWeighted(eventWeights[:]),
		max:   cfg.Start,
	}, nil
}

// Config returns the generator's config with defaults applied.
func (g *EventGenerator) Config() EventsConfig { return g.cfg }

// Next returns the next record, or false once Count records were returned.
func (g *EventGenerator) Next() (EventRecord, bool) {
	c := &g.cfg
	if g.next >= c.Count {
		return EventRecord{}, false
	}
	i := g.next
	g.next++

	// The in-order time of position i is uniform within its slot of the
	// span, so in-order times never decrease.
	offsetMs := int64(float64(c.Span.Milliseconds()) * (float64(i) + g.r.Float64()) / float64(c.Count))
	inOrder := c.Start.Add(time.Duration(offsetMs) * time.Millisecond)

	intent := InOrder
	switch u := g.r.Float64(); {
	case u < c.OutOfOrder:
		intent = OutOfOrder
	case u < c.OutOfOrder+c.Late:
		intent = Late
	case u < c.OutOfOrder+c.Late+c.Duplicates:
		intent = Duplicate
	case u < c.OutOfOrder+c.Late+c.Duplicates+c.Malformed:
		intent = Malformed
	}
	if intent == Duplicate {
		if g.nRecent > 0 {
			rec := g.recent[g.r.IntN(g.nRecent)]
			rec.Intent = Duplicate
			return rec, true
		}
		intent = InOrder // nothing to copy yet
	}

	user := g.users[g.r.IntN(len(g.users))]
	name := eventNames[g.names.pick(g.r)]
	ts := inOrder
	switch intent {
	case OutOfOrder:
		// Never before Start: near the start the jitter bound shrinks, and
		// at the very start there is no earlier time to go back to.
		if bound := min(c.OutOfOrderMax, g.max.Sub(c.Start)); bound >= time.Millisecond {
			ts = g.max.Add(-uniformDuration(g.r, time.Millisecond, bound))
		} else {
			intent = InOrder
		}
	case Late:
		// Likewise never before Start: until the stream is LateMin past
		// Start, there is no room to be late.
		if bound := min(c.LateMax, g.max.Sub(c.Start)); bound >= c.LateMin && bound > 0 {
			ts = g.max.Add(-uniformDuration(g.r, c.LateMin, bound))
		} else {
			intent = InOrder
		}
	}

	rec := EventRecord{
		Key:    []byte(user),
		Event:  Event{UserID: user, Event: name, TS: ts.Format(TimeLayout)},
		Time:   ts,
		Intent: intent,
	}
	if intent == Malformed {
		rec.Value = malformedEvent(g.r.IntN(3), rec.Event)
		return rec, true
	}
	rec.Value = appendEventJSON(make([]byte, 0, 64+len(user)+len(name)), rec.Event)
	if ts.After(g.max) {
		g.max = ts
	}
	g.recent[g.recentPos] = rec
	g.recentPos = (g.recentPos + 1) % duplicateWindow
	g.nRecent = min(g.nRecent+1, duplicateWindow)
	return rec, true
}

// GenerateEvents returns every record of the stream cfg describes, in the
// order ProduceEvents sends them. The same cfg always yields byte-identical
// records.
func GenerateEvents(cfg EventsConfig) ([]EventRecord, error) {
	g, err := NewEventGenerator(cfg)
	if err != nil {
		return nil, err
	}
	out := make([]EventRecord, 0, g.cfg.Count)
	for rec, ok := g.Next(); ok; rec, ok = g.Next() {
		out = append(out, rec)
	}
	return out, nil
}

// appendEventJSON appends e as {"user_id":...,"event":...,"ts":...}.
func appendEventJSON(b []byte, e Event) []byte {
	b = append(b, `{"user_id":`...)
	b = appendJSONString(b, e.UserID)
	b = append(b, `,"event":`...)
	b = appendJSONString(b, e.Event)
	b = append(b, `,"ts":`...)
	b = appendJSONString(b, e.TS)
	return append(b, '}')
}

// malformedEvent returns a value carrying e that does not decode into Event:
// kind 0 is JSON cut short, kind 1 is key=value text, kind 2 has "ts" as an
// array holding the time string.
func malformedEvent(kind int, e Event) []byte {
	switch kind {
	case 0:
		full := appendEventJSON(nil, e)
		return full[:len(full)-3] // cut inside the ts string
	case 1:
		return []byte("user_id=" + e.UserID + " event=" + e.Event + " ts=" + e.TS)
	default:
		b := appendJSONString([]byte(`{"user_id":`), e.UserID)
		b = append(b, `,"event":`...)
		b = appendJSONString(b, e.Event)
		b = append(b, `,"ts":[`...)
		b = appendJSONString(b, e.TS)
		return append(b, `]}`...)
	}
}
