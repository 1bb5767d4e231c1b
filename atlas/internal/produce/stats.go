package produce

import (
	"fmt"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
)

// EventStats counts what an events stream holds, by the generator's intents.
// The zero value is empty and ready; Add one record at a time.
type EventStats struct {
	// Records and Bytes count records and their key plus value bytes.
	Records, Bytes int64
	// InOrder, OutOfOrder, Late, Duplicates and Malformed count records by
	// Intent; they sum to Records.
	InOrder, OutOfOrder, Late, Duplicates, Malformed int64
	// MinTime and MaxTime bound the event times of the well-formed records
	// (duplicates included); both are zero when there is none.
	MinTime, MaxTime time.Time
}

// Add counts rec.
func (s *EventStats) Add(rec EventRecord) {
	s.Records++
	s.Bytes += int64(len(rec.Key) + len(rec.Value))
	switch rec.Intent {
	case InOrder:
		s.InOrder++
	case OutOfOrder:
		s.OutOfOrder++
	case Late:
		s.Late++
	case Duplicate:
		s.Duplicates++
	case Malformed:
		s.Malformed++
		return
	}
	if s.MinTime.IsZero() || rec.Time.Before(s.MinTime) {
		s.MinTime = rec.Time
	}
	if rec.Time.After(s.MaxTime) {
		s.MaxTime = rec.Time
	}
}

// SummarizeEvents counts recs.
func SummarizeEvents(recs []EventRecord) EventStats {
	var s EventStats
	for _, r := range recs {
		s.Add(r)
	}
	return s
}

// CDCStats counts what a CDC stream holds. The zero value is empty and
// ready; Add one record at a time.
type CDCStats struct {
	// Records and Bytes count records and their key plus value bytes.
	Records, Bytes int64
	// Inserts, Updates and Deletes count changes by Op; Reinserts counts the
	// inserts of keys deleted before (they are among Inserts).
	Inserts, Updates, Deletes, Reinserts int64
	// DistinctKeys is the number of distinct record keys.
	DistinctKeys int64
	// MaxChangesPerKey is the largest number of changes of one key.
	MaxChangesPerKey int64

	changes map[string]int64 // changes per key
}

// Add counts rec.
func (s *CDCStats) Add(rec ChangeRecord) {
	if s.changes == nil {
		s.changes = make(map[string]int64)
	}
	s.Records++
	s.Bytes += int64(len(rec.Key) + len(rec.Value))
	n := s.changes[string(rec.Key)] + 1
	s.changes[string(rec.Key)] = n
	if n == 1 {
		s.DistinctKeys++
	}
	s.MaxChangesPerKey = max(s.MaxChangesPerKey, n)
	switch rec.Change.Op {
	case OpInsert:
		s.Inserts++
		if n > 1 {
			s.Reinserts++
		}
	case OpUpdate:
		s.Updates++
	case OpDelete:
		s.Deletes++
	}
}

// SummarizeCDC counts recs.
func SummarizeCDC(recs []ChangeRecord) CDCStats {
	var s CDCStats
	for _, r := range recs {
		s.Add(r)
	}
	return s
}

// EventsSummary describes one run of ProduceEvents.
type EventsSummary struct {
	// Topic is where the records went.
	Topic string
	// Elapsed is the wall time from the first record to the end of the flush.
	Elapsed time.Duration
	// EventStats counts the records handed to the client.
	EventStats
}

// RecordsPerSecond is Records divided by Elapsed.
func (s EventsSummary) RecordsPerSecond() float64 { return perSecond(s.Records, s.Elapsed) }

// String renders the summary as a few human-readable lines.
func (s EventsSummary) String() string {
	var b strings.Builder
	writeThroughput(&b, s.Topic, s.Records, s.Bytes, s.Elapsed)
	if !s.MinTime.IsZero() {
		fmt.Fprintf(&b, "event time %s .. %s\n", s.MinTime.Format(TimeLayout), s.MaxTime.Format(TimeLayout))
	}
	fmt.Fprintf(&b, "intended: %s in order, %s out of order, %s late, %s duplicates, %s malformed\n",
		numfmt.Group(s.InOrder), numfmt.Group(s.OutOfOrder), numfmt.Group(s.Late),
		numfmt.Group(s.Duplicates), numfmt.Group(s.Malformed))
	return b.String()
}

// CDCSummary describes one run of ProduceCDC.
type CDCSummary struct {
	// Topic is where the records went.
	Topic string
	// Elapsed is the wall time from the first record to the end of the flush.
	Elapsed time.Duration
	// CDCStats counts the records handed to the client.
	CDCStats
}

// RecordsPerSecond is Records divided by Elapsed.
func (s CDCSummary) RecordsPerSecond() float64 { return perSecond(s.Records, s.Elapsed) }

// String renders the summary as a few human-readable lines.
func (s CDCSummary) String() string {
	var b strings.Builder
	writeThroughput(&b, s.Topic, s.Records, s.Bytes, s.Elapsed)
	fmt.Fprintf(&b, "changes: %s inserts (%s re-inserts), %s updates, %s deletes; %s distinct keys, at most %d changes per key\n",
		numfmt.Group(s.Inserts), numfmt.Group(s.Reinserts), numfmt.Group(s.Updates), numfmt.Group(s.Deletes),
		numfmt.Group(s.DistinctKeys), s.MaxChangesPerKey)
	return b.String()
}

// writeThroughput writes the first summary line: records, bytes, time, rate.
func writeThroughput(b *strings.Builder, topic string, records, bytes int64, elapsed time.Duration) {
	fmt.Fprintf(b, "produced %s records (%s) to topic %q in %s: %s records/s, %s/s\n",
		numfmt.Group(records), humanBytes(float64(bytes)), topic, elapsed.Round(time.Millisecond),
		numfmt.Group(int64(perSecond(records, elapsed))), humanBytes(perSecond(bytes, elapsed)))
}

// perSecond divides n by d in seconds, or returns 0 for a zero duration.
func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// humanBytes formats a byte count in decimal units: 84.1 MB.
func humanBytes(n float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	u := 0
	for n >= 1000 && u < len(units)-1 {
		n /= 1000
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%.0f %s", n, units[u])
	}
	return fmt.Sprintf("%.1f %s", n, units[u])
}
