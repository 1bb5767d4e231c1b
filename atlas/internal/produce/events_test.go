package produce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// scenarioEvents is the configuration the events tests share: the
// fractions of the scenario, at a size that generates in milliseconds.
func scenarioEvents(seed int64) EventsConfig {
	return EventsConfig{
		Count: 50_000, Seed: seed,
		OutOfOrder: 0.1, Late: 0.02, Duplicates: 0.01, Malformed: 0.01,
	}
}

func mustEvents(t *testing.T, cfg EventsConfig) []EventRecord {
	t.Helper()
	recs, err := GenerateEvents(cfg)
	if err != nil {
		t.Fatalf("GenerateEvents(%+v): %v", cfg, err)
	}
	return recs
}

// within fails unless got is within five standard deviations of the
// binomial count expected from n draws with probability p.
func within(t *testing.T, what string, got, n int64, p float64) {
	t.Helper()
	want := float64(n) * p
	tol := 5*math.Sqrt(float64(n)*p*(1-p)) + 2
	if math.Abs(float64(got)-want) > tol {
		t.Errorf("%s: %d records, want %.0f ± %.0f (fraction %g of %d)", what, got, want, tol, p, n)
	}
}

func TestGenerateEventsIsDeterministic(t *testing.T) {
	a := mustEvents(t, scenarioEvents(1))
	b := mustEvents(t, scenarioEvents(1))
	c := mustEvents(t, scenarioEvents(2))
	if len(a) != 50_000 || len(b) != len(a) || len(c) != len(a) {
		t.Fatalf("lengths %d, %d, %d; want 50000 each", len(a), len(b), len(c))
	}
	differ := 0
	for i := range a {
		if !bytes.Equal(a[i].Key, b[i].Key) || !bytes.Equal(a[i].Value, b[i].Value) {
			t.Fatalf("seed 1 run twice differs at record %d: %s / %s", i, a[i].Value, b[i].Value)
		}
		if !bytes.Equal(a[i].Value, c[i].Value) {
			differ++
		}
	}
	if differ < len(a)/2 {
		t.Errorf("seeds 1 and 2 differ in only %d of %d records", differ, len(a))
	}
}

func TestGenerateEventsValuesDecodeIntoEvent(t *testing.T) {
	recs := mustEvents(t, scenarioEvents(3))
	var malformed int64
	for i, r := range recs {
		var e Event
		dec := json.NewDecoder(bytes.NewReader(r.Value))
		dec.DisallowUnknownFields()
		err := dec.Decode(&e)
		if r.Intent == Malformed {
			if err == nil {
				t.Fatalf("record %d intended malformed decodes: %s", i, r.Value)
			}
			malformed++
			continue
		}
		if err != nil {
			t.Fatalf("record %d: %s does not decode: %v", i, r.Value, err)
		}
		if e != r.Event {
			t.Fatalf("record %d decodes to %+v, generator says %+v", i, e, r.Event)
		}
		if string(r.Key) != e.UserID {
			t.Fatalf("record %d: key %q, user_id %q", i, r.Key, e.UserID)
		}
		ts, err := time.Parse(time.RFC3339Nano, e.TS)
		if err != nil || !ts.Equal(r.Time) || len(e.TS) != len("2026-11-30T10:15:30.123Z") || !strings.HasSuffix(e.TS, "Z") {
			t.Fatalf("record %d: ts %q (parsed %v, %v), want %v in %s", i, e.TS, ts, err, r.Time, TimeLayout)
		}
	}
	if malformed == 0 {
		t.Error("no malformed record generated at fraction 0.01")
	}
}

// TestGenerateEventsFractions classifies the records from their bytes and
// event times alone, the way a streaming engine sees them, and checks the
// classes against the configured fractions.
func TestGenerateEventsFractions(t *testing.T) {
	cfg := scenarioEvents(4)
	recs := mustEvents(t, cfg)
	n := int64(len(recs))

	seen := map[string]bool{}
	var dups, malformed, inOrder, outOfOrder, late int64
	var maxTime time.Time
	for i, r := range recs {
		if seen[string(r.Value)] {
			dups++
			continue
		}
		seen[string(r.Value)] = true
		var e Event
		if json.Unmarshal(r.Value, &e) != nil {
			malformed++
			continue
		}
		ts, err := time.Parse(TimeLayout, e.TS)
		if err != nil {
			t.Fatalf("record %d: ts %q: %v", i, e.TS, err)
		}
		switch lag := maxTime.Sub(ts); {
		case maxTime.IsZero() || lag <= 0:
			inOrder++
			maxTime = ts
		case lag <= DefaultOutOfOrderMax:
			outOfOrder++
		case lag >= DefaultLateMin && lag <= DefaultLateMax:
			late++
		default:
			t.Fatalf("record %d: %s is %s behind the max event time, neither out of order (≤ %s) nor late ([%s, %s])",
				i, r.Value, lag, DefaultOutOfOrderMax, DefaultLateMin, DefaultLateMax)
		}
	}
	within(t, "exact duplicates", dups, n, cfg.Duplicates)
	within(t, "malformed", malformed, n, cfg.Malformed)
	within(t, "out of order", outOfOrder, n, cfg.OutOfOrder)
	within(t, "late", late, n, cfg.Late)
	if inOrder+outOfOrder+late+dups+malformed != n {
		t.Errorf("classes sum to %d, want %d", inOrder+outOfOrder+late+dups+malformed, n)
	}

	// The intents agree with the classification up to chance collisions.
	s := SummarizeEvents(recs)
	for _, c := range []struct {
		name           string
		intent, actual int64
	}{{"duplicates", s.Duplicates, dups}, {"malformed", s.Malformed, malformed}, {"late", s.Late, late}, {"out of order", s.OutOfOrder, outOfOrder}} {
		if d := c.intent - c.actual; d < -3 || d > 3 {
			t.Errorf("%s: generator intended %d, data shows %d", c.name, c.intent, c.actual)
		}
	}
}

func TestGenerateEventsSpanAndVocabulary(t *testing.T) {
	cfg := EventsConfig{Count: 20_000, Seed: 5, Users: 250, Span: 30 * time.Minute, OutOfOrder: 0.2, Late: 0.1, LateMin: 5 * time.Minute, LateMax: 10 * time.Minute}
	recs := mustEvents(t, cfg)
	start := DefaultEventsStart()
	end := start.Add(cfg.Span)
	minT, maxT := recs[0].Time, recs[0].Time
	users := map[string]bool{}
	names := map[string]int{}
	for i, r := range recs {
		if r.Time.Before(start) || !r.Time.Before(end) {
			t.Fatalf("record %d: event time %v outside [%v, %v)", i, r.Time, start, end)
		}
		minT, maxT = minOf(minT, r.Time), maxOf(maxT, r.Time)
		users[r.Event.UserID] = true
		names[r.Event.Event]++
	}
	step := cfg.Span / time.Duration(cfg.Count)
	if minT.Sub(start) > step || end.Sub(maxT) > step {
		t.Errorf("event times span [%v, %v], want the whole [%v, %v) within %v", minT, maxT, start, end, step)
	}
	if s := SummarizeEvents(recs); s.Late < 1000 || s.OutOfOrder < 2000 {
		t.Errorf("%d late and %d out-of-order records, want about 2000 and 4000 inside the span", s.Late, s.OutOfOrder)
	}
	if len(users) != 250 {
		t.Errorf("%d distinct users, want 250", len(users))
	}
	for u := range users {
		var k int
		if _, err := fmt.Sscanf(u, "u%03d", &k); err != nil || k < 0 || k >= 250 || u != fmt.Sprintf("u%03d", k) {
			t.Errorf("user id %q is not u000..u249", u)
		}
	}
	vocab := EventNames()
	if len(names) != len(vocab) {
		t.Errorf("event names %v, want exactly %v", names, vocab)
	}
	for i := 1; i < len(vocab); i++ {
		if names[vocab[i-1]] <= names[vocab[i]] {
			t.Errorf("%s (%d) not more frequent than %s (%d)", vocab[i-1], names[vocab[i-1]], vocab[i], names[vocab[i]])
		}
	}
}

func TestGenerateEventsWithoutDisorderIsMonotonic(t *testing.T) {
	recs := mustEvents(t, EventsConfig{Count: 10_000, Seed: 6, Start: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), Span: time.Hour})
	for i := 1; i < len(recs); i++ {
		if recs[i].Time.Before(recs[i-1].Time) || recs[i].Intent != InOrder {
			t.Fatalf("record %d (%s) goes back from %s", i, recs[i].Value, recs[i-1].Value)
		}
	}
	if got := recs[0].Event.TS; got[:13] != "2030-01-01T00" {
		t.Errorf("first ts %q, want it at the configured start", got)
	}
}

func TestEventsConfigRejectsInvalid(t *testing.T) {
	for _, cfg := range []EventsConfig{
		{Count: -1},
		{Count: 1, OutOfOrder: 0.6, Late: 0.5},
		{Count: 1, Malformed: -0.1},
		{Count: 1, LateMin: 10 * time.Minute, LateMax: time.Minute},
		{Count: 1, Rate: -5},
	} {
		if _, err := GenerateEvents(cfg); err == nil {
			t.Errorf("GenerateEvents(%+v) accepted an invalid config", cfg)
		}
	}
	if recs, err := GenerateEvents(EventsConfig{}); err != nil || len(recs) != 0 {
		t.Errorf("zero config: %d records, %v; want none and no error", len(recs), err)
	}
}

func minOf(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
