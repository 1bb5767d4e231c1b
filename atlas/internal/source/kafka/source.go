package kafka

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// Source reads subscribed Kafka topics as a replayable stream of Arrow
// records. It implements source.Source and source.AvailableNow. Its methods
// are safe for concurrent use, though a streaming query calls them from one
// goroutine.
type Source struct {
	cfg    *config
	cl     *kgo.Client
	lister *offsetLister
	reader *reader

	mu         sync.Mutex
	initial    Offsets  // resolved startingOffsets, nil until resolved
	initialIDs topicIDs // the topic ids initial belongs to
	pinned     Offsets  // end offsets pinned by PrepareForAvailableNow, or nil
	pinnedIDs  topicIDs // the topic ids pinned belongs to
	// seen holds, by topic id, the partition ends last listed, to tell how
	// much of a topic deleted since was never read.
	seen map[string]map[int32]int64
	// loss is what the last GetBatch skipped (failOnDataLoss=false).
	loss []progress.DataLoss
}

var (
	_ source.Source           = (*Source)(nil)
	_ source.AvailableNow     = (*Source)(nil)
	_ source.DataLossReporter = (*Source)(nil)
	_ source.ProgressOffsets  = (*Source)(nil)
	_ source.ColumnPruner     = (*Source)(nil)
)

// New creates a Kafka source from Spark-style options (see ValidOptions):
// kafka.bootstrap.servers and subscribe are required; startingOffsets
// ("latest" by default, "earliest" or JSON), maxOffsetsPerTrigger and
// failOnDataLoss (true by default) are optional. Unknown options are an
// error that lists the valid ones. New does not contact the brokers; the
// first call that needs them does.
func New(opts map[string]string) (*Source, error) {
	cfg, err := parseOptions(opts)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(clientOptions(cfg, nil)...)
	if err != nil {
		return nil, fmt.Errorf("kafka source: creating client for %s: %w", strings.Join(cfg.bootstrap, ","), err)
	}
	return &Source{
		cfg:    cfg,
		cl:     cl,
		lister: &offsetLister{cl: cl, adm: kadm.NewClient(cl), topics: cfg.topics, readCommitted: cfg.readCommitted, pattern: cfg.pattern, assigned: cfg.assigned},
		reader: newReader(cl, cfg),
	}, nil
}

// PruneColumns stops building the columns of Schema the query does not
// read (read[i] false): they come as nulls. Converting fetched records to
// Arrow then copies only what the query uses (the events scenario reads
// only value). The offset column is always built.
func (s *Source) PruneColumns(read []bool) { s.reader.prune(read) }

// Description names the source as Spark does: KafkaV2[Subscribe[events]],
// KafkaV2[SubscribePattern[events-.*]] or KafkaV2[Assign[events-0, events-1]].
func (s *Source) Description() string {
	switch {
	case s.cfg.pattern != nil:
		return "KafkaV2[SubscribePattern[" + s.cfg.patternText + "]]"
	case s.cfg.assigned != nil:
		var parts []string
		for _, t := range s.cfg.topics {
			var ps []int
			for p := range s.cfg.assigned[t] {
				ps = append(ps, int(p))
			}
			sort.Ints(ps)
			for _, p := range ps {
				parts = append(parts, fmt.Sprintf("%s-%d", t, p))
			}
		}
		return "KafkaV2[Assign[" + strings.Join(parts, ", ") + "]]"
	}
	return "KafkaV2[Subscribe[" + strings.Join(s.cfg.topics, ",") + "]]"
}

// Schema returns the fixed Kafka schema, Schema.
func (s *Source) Schema() *arrow.Schema { return Schema }

// InitialOffset resolves startingOffsets against the brokers the first time
// it is called and returns the same offset on every later call: "earliest"
// takes each partition's log start, "latest" its end, and a JSON offset map
// resolves -2 and -1 the same way. A subscribed topic that does not exist
// yet contributes no partitions; its partitions are read from their start
// once they appear. The offset records the topic ids beside the offsets.
func (s *Source) InitialOffset(ctx context.Context) (source.Offset, error) {
	offs, ids, err := s.initialOffsets(ctx)
	if err != nil {
		return "", s.unavailable(ctx, err)
	}
	return formatPosition(offs, ids), nil
}

func (s *Source) initialOffsets(ctx context.Context) (Offsets, topicIDs, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initial != nil {
		return s.initial, s.initialIDs, nil
	}
	var (
		offs Offsets
		err  error
	)
	switch s.cfg.start {
	case startEarliest:
		offs, err = s.lister.earliest(ctx)
	case startLatest:
		offs, err = s.lister.latest(ctx)
	case startSpecific:
		offs, err = s.resolveSpecific(ctx, "startingOffsets", s.cfg.specific)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("kafka source: resolving startingOffsets: %w", err)
	}
	// Read after the offsets: an id that changed in between marks the
	// offsets as the old topic's, which the next batch then detects.
	ids, err := s.lister.topicIDs(ctx)
	if err != nil {
		return nil, nil, err
	}
	s.initial, s.initialIDs = offs, ids
	return offs, ids, nil
}

// resolveSpecific checks JSON offsets (of the option named option) against
// the partitions that exist, as Spark does (every partition must be
// named), and resolves -2 and -1.
func (s *Source) resolveSpecific(ctx context.Context, option string, specific Offsets) (Offsets, error) {
	earliest, err := s.lister.earliest(ctx)
	if err != nil {
		return nil, err
	}
	latest, err := s.lister.latest(ctx)
	if err != nil {
		return nil, err
	}
	var missing, unknown []string
	out := make(Offsets)
	latest.each(func(t string, p int32, end int64) {
		off, ok := specific.get(t, p)
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("%s-%d", t, p))
		case off == specificEarliest:
			out.set(t, p, earliest[t][p])
		case off == specificLatest:
			out.set(t, p, end)
		default:
			out.set(t, p, off)
		}
	})
	specific.each(func(t string, p int32, _ int64) {
		if _, ok := latest.get(t, p); !ok {
			unknown = append(unknown, fmt.Sprintf("%s-%d", t, p))
		}
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s must name every partition of the subscribed topics (-2 for earliest, -1 for latest); missing %s", option, strings.Join(missing, ", "))
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s names partitions that do not exist: %s", option, strings.Join(unknown, ", "))
	}
	return out, nil
}

// LatestOffset returns the end of the next batch starting at start: every
// partition's current end (or the end pinned by PrepareForAvailableNow),
// limited by maxOffsetsPerTrigger split across partitions in proportion to
// their lag. Partitions that appeared since start are included from offset 0
// once they hold data. It returns start itself when there is nothing new.
// The empty start means the initial offset.
func (s *Source) LatestOffset(ctx context.Context, start source.Offset) (source.Offset, error) {
	end, err := s.latestOffset(ctx, start)
	return end, s.unavailable(ctx, err)
}

func (s *Source) latestOffset(ctx context.Context, start source.Offset) (source.Offset, error) {
	from, fromIDs, err := s.startPosition(ctx, start)
	if err != nil {
		return "", err
	}
	until, untilIDs, err := s.untilOffsets(ctx)
	if err != nil {
		return "", err
	}

	// A topic whose id differs from the one recorded with start was deleted
	// and created again: start's offsets belong to a topic that is gone.
	// Until the new topic's partitions are listed (just after it is
	// created, its id can be known before them) the batch waits: an end
	// without the topic would carry neither its new id nor its partitions,
	// and the switch, with the data loss it reports, would go unrecorded.
	recreated := map[string]bool{}
	for _, t := range sortedTopics(from) {
		if old, cur := fromIDs[t], untilIDs[t]; old != "" && cur != "" && old != cur && len(until[t]) > 0 {
			recreated[t] = true
		}
	}
	if len(recreated) > 0 && s.cfg.failOnDataLoss {
		return "", s.recreatedError(from, fromIDs, untilIDs, recreated)
	}
	// Without failOnDataLoss a recreated topic is read from the new topic's
	// earliest offsets: as if all its partitions were new.
	base := from.clone()
	for t := range recreated {
		delete(base, t)
	}

	end := base.clone()
	begin := base.clone()
	var added []string
	var shrunk []string
	until.each(func(t string, p int32, u int64) {
		b, ok := base.get(t, p)
		switch {
		case !ok:
			if u > 0 || recreated[t] {
				// A recreated topic's partitions are all kept, even empty
				// ones, so that the batch records the switch to its id.
				end.set(t, p, u)
				begin.set(t, p, 0)
			}
			if u > 0 {
				added = append(added, t)
			}
		case u < b:
			// The partition went backwards: truncated, or recreated on a
			// broker without topic ids. Spark reports this as data loss,
			// and so does this source under every trigger, AvailableNow
			// included.
			shrunk = append(shrunk, fmt.Sprintf("%s-%d from %d to %d", t, p, b, u))
			end.set(t, p, u)
		case u > b:
			end.set(t, p, u)
		}
	})
	if len(shrunk) > 0 && s.cfg.failOnDataLoss {
		return "", fmt.Errorf("kafka source: the end offset of %s went backwards, some data may have been lost (the partition was truncated or the topic recreated); set the source option failOnDataLoss to false to go on from the new offsets", strings.Join(shrunk, ", "))
	}
	if s.cfg.maxOffsets > 0 {
		if len(added) > 0 {
			// Weigh new partitions by their real lag, from their log start.
			earliest, err := s.lister.earliest(ctx, uniqueSorted(added)...)
			if err != nil {
				return "", err
			}
			earliest.each(func(t string, p int32, off int64) {
				_, inStart := base.get(t, p)
				_, inEnd := end.get(t, p)
				if !inStart && inEnd {
					begin.set(t, p, off)
				}
			})
		}
		end = rateLimit(s.cfg.maxOffsets, begin, end)
	}
	if start != "" && len(recreated) == 0 && FormatOffset(end) == FormatOffset(from) {
		return start, nil
	}
	endIDs := make(topicIDs, len(end))
	for t := range end {
		if id := untilIDs[t]; id != "" {
			endIDs[t] = id
		} else if id := fromIDs[t]; id != "" {
			endIDs[t] = id
		}
	}
	return formatPosition(end, endIDs), nil
}

// untilOffsets returns how far the next batch may read and the topic ids
// those offsets belong to: the ends pinned by PrepareForAvailableNow, or
// every partition's current end. A topic recreated after the pin is read
// up to its current end, since its pinned offsets belong to the old topic.
func (s *Source) untilOffsets(ctx context.Context) (Offsets, topicIDs, error) {
	s.mu.Lock()
	pinned, pinnedIDs := s.pinned, s.pinnedIDs
	s.mu.Unlock()
	if pinned == nil {
		until, err := s.lister.latest(ctx)
		if err != nil {
			return nil, nil, err
		}
		ids, err := s.lister.topicIDs(ctx)
		if err != nil {
			return nil, nil, err
		}
		s.remember(until, ids)
		return until, ids, nil
	}
	cur, err := s.lister.topicIDs(ctx)
	if err != nil {
		return nil, nil, err
	}
	var moved []string
	for t, id := range cur {
		if old := pinnedIDs[t]; old != "" && old != id {
			moved = append(moved, t)
		}
	}
	if len(moved) == 0 {
		return pinned, pinnedIDs, nil
	}
	sort.Strings(moved)
	fresh, err := s.lister.latest(ctx, moved...)
	if err != nil {
		return nil, nil, err
	}
	until, ids := pinned.clone(), make(topicIDs, len(pinnedIDs))
	for t, id := range pinnedIDs {
		ids[t] = id
	}
	for _, t := range moved {
		delete(until, t)
		ids[t] = cur[t]
	}
	fresh.each(func(t string, p int32, off int64) { until.set(t, p, off) })
	return until, ids, nil
}

// remember keeps the latest listed ends by topic id.
func (s *Source) remember(ends Offsets, ids topicIDs) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil {
		s.seen = make(map[string]map[int32]int64)
	}
	for t, ps := range ends {
		if id := ids[t]; id != "" {
			s.seen[id] = ps
		}
	}
}

// recreatedError says which topics were deleted and created again, with
// the offsets the checkpoint holds for them and the way out.
func (s *Source) recreatedError(from Offsets, fromIDs, curIDs topicIDs, recreated map[string]bool) error {
	var parts []string
	for _, t := range sortedTopics(from) {
		if !recreated[t] {
			continue
		}
		only := Offsets{t: from[t]}
		parts = append(parts, fmt.Sprintf("topic %q was deleted and created again: the checkpoint's offsets %s belong to the topic with id %s, the topic now has id %s", t, FormatOffset(only), fromIDs[t], curIDs[t]))
	}
	return fmt.Errorf("kafka source: %s; reading on from those offsets would skip or repeat records of the new topic. To read the new topic from startingOffsets, start the query with a new checkpointLocation; to go on from the new topic's earliest offsets and have the progress report what was lost, set the source option failOnDataLoss to false", strings.Join(parts, "; "))
}

// AvailableOffset returns every partition's current end, ignoring
// maxOffsetsPerTrigger and any AvailableNow pin; progress reports it as the
// source's latestOffset.
func (s *Source) AvailableOffset(ctx context.Context) (source.Offset, error) {
	offs, err := s.lister.latest(ctx)
	if err != nil {
		return "", s.unavailable(ctx, err)
	}
	return FormatOffset(offs), nil
}

// PrepareForAvailableNow pins the end offsets of all partitions as they are
// now; afterwards LatestOffset never goes past them, so a query with
// Trigger.AvailableNow stops once it has read them (over several batches
// when maxOffsetsPerTrigger applies). Partitions created later are not read.
func (s *Source) PrepareForAvailableNow(ctx context.Context) error {
	offs, err := s.lister.latest(ctx)
	if err != nil {
		return s.unavailable(ctx, fmt.Errorf("kafka source: pinning end offsets for Trigger.AvailableNow: %w", err))
	}
	ids, err := s.lister.topicIDs(ctx)
	if err != nil {
		return s.unavailable(ctx, fmt.Errorf("kafka source: pinning end offsets for Trigger.AvailableNow: %w", err))
	}
	s.remember(offs, ids)
	s.mu.Lock()
	s.pinned, s.pinnedIDs = offs, ids
	s.mu.Unlock()
	return nil
}

// GetBatch reads exactly the records at offsets [start, end) of every
// partition and passes them to fn as Arrow records of at most 64Ki rows.
// A partition absent from start is read from offset 0, and so is every
// partition of a topic whose id in end differs from the one in start (the
// topic was recreated and failOnDataLoss is false). The records passed to
// fn are released when fn returns.
func (s *Source) GetBatch(ctx context.Context, start, end source.Offset, fn func(arrow.RecordBatch) error) error {
	from, fromIDs, err := s.startPosition(ctx, start)
	if err != nil {
		return s.unavailable(ctx, err)
	}
	until, untilIDs, err := parsePosition(end)
	if err != nil {
		return fmt.Errorf("kafka source: batch end: %w", err)
	}
	loss := s.planLoss(from, fromIDs, until, untilIDs)
	for t := range from {
		if old, cur := fromIDs[t], untilIDs[t]; old != "" && cur != "" && old != cur {
			delete(from, t)
			// The consumer may still fetch by the deleted topic's id.
			s.reader.forget(t)
		}
	}
	s.mu.Lock()
	s.loss = nil
	s.mu.Unlock()
	readLoss, err := s.reader.read(ctx, from, until, fn)
	if err != nil {
		return s.unavailable(ctx, fmt.Errorf("kafka source: reading %s to %s: %w", FormatOffset(from), SparkOffset(end), err))
	}
	s.mu.Lock()
	s.loss = append(loss, readLoss...)
	s.mu.Unlock()
	return nil
}

// planLoss lists what the batch [from, until) skips by its offsets alone:
// the rest of every partition of a recreated topic, and the records past a
// partition's start when its end went backwards.
func (s *Source) planLoss(from Offsets, fromIDs topicIDs, until Offsets, untilIDs topicIDs) []progress.DataLoss {
	var out []progress.DataLoss
	s.mu.Lock()
	defer s.mu.Unlock()
	from.each(func(t string, p int32, off int64) {
		old, cur := fromIDs[t], untilIDs[t]
		if old == "" || cur == "" || old == cur {
			if e, ok := until.get(t, p); ok && e < off {
				out = append(out, progress.DataLoss{
					Partition: fmt.Sprintf("%s-%d", t, p), FromOffset: off, ToOffset: -1,
					Reason: fmt.Sprintf("the partition's end went back from %d to %d (truncated, or the topic recreated): records after %d that were not read yet are gone", off, e, off),
				})
			}
			return
		}
		to := int64(-1)
		if e, ok := s.seen[old][p]; ok && e >= off {
			to = e
		}
		out = append(out, progress.DataLoss{
			Partition: fmt.Sprintf("%s-%d", t, p), FromOffset: off, ToOffset: to,
			Reason: fmt.Sprintf("topic %s was deleted and created again (topic id %s, now %s): the old topic's records from offset %d on were not read; the new topic is read from its earliest offset", t, old, cur, off),
		})
	})
	return out
}

// DataLoss returns what the last GetBatch skipped because the records were
// gone: deleted by retention or DeleteRecords before they were read,
// truncated, or in a topic deleted and created again. Only with
// failOnDataLoss=false; otherwise such a loss fails the batch.
func (s *Source) DataLoss() []progress.DataLoss {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]progress.DataLoss(nil), s.loss...)
}

// ProgressOffset returns o as Spark writes it, without the topic ids.
func (s *Source) ProgressOffset(o source.Offset) source.Offset { return SparkOffset(o) }

// Commit drops buffered records before end. The source commits nothing to
// Kafka: as in Spark, the offsets log is the only record of progress.
func (s *Source) Commit(_ context.Context, end source.Offset) error {
	offs, err := ParseOffset(end)
	if err != nil {
		return fmt.Errorf("kafka source: commit: %w", err)
	}
	s.reader.trim(offs)
	return nil
}

// DataLossOffsets returns how many offsets the source skipped because their
// records were deleted before they were read, over its life. It counts only
// with failOnDataLoss=false; otherwise such a loss fails the batch.
func (s *Source) DataLossOffsets() int64 { return s.reader.lost.Load() }

// Close closes the Kafka client, which ends a GetBatch in progress, and
// drops buffered records. Closing twice is harmless.
func (s *Source) Close() error {
	s.cl.Close()
	s.reader.close()
	return nil
}

// startPosition parses a batch start and its topic ids; the empty start is
// the initial offset. The offsets returned are the caller's to change.
func (s *Source) startPosition(ctx context.Context, start source.Offset) (Offsets, topicIDs, error) {
	if start == "" {
		offs, ids, err := s.initialOffsets(ctx)
		return offs.clone(), ids, err
	}
	offs, ids, err := parsePosition(start)
	if err != nil {
		return nil, nil, fmt.Errorf("kafka source: batch start: %w", err)
	}
	return offs, ids, nil
}

// sortedTopics returns the topics of o in name order.
func sortedTopics(o Offsets) []string {
	ts := make([]string, 0, len(o))
	for t := range o {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return ts
}

func uniqueSorted(xs []string) []string {
	sort.Strings(xs)
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
