package kafka

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/source"
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

	mu      sync.Mutex
	initial Offsets // resolved startingOffsets, nil until resolved
	pinned  Offsets // end offsets pinned by PrepareForAvailableNow, or nil
}

var (
	_ source.Source       = (*Source)(nil)
	_ source.AvailableNow = (*Source)(nil)
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
	cl, err := kgo.NewClient(clientOptions(cfg)...)
	if err != nil {
		return nil, fmt.Errorf("kafka source: creating client for %s: %w", strings.Join(cfg.bootstrap, ","), err)
	}
	return &Source{
		cfg:    cfg,
		cl:     cl,
		lister: &offsetLister{adm: kadm.NewClient(cl), topics: cfg.topics, readCommitted: cfg.readCommitted},
		reader: newReader(cl, cfg.failOnDataLoss, cfg.readCommitted, memory.DefaultAllocator),
	}, nil
}

// Description names the source as Spark does: KafkaV2[Subscribe[events]].
func (s *Source) Description() string {
	return "KafkaV2[Subscribe[" + strings.Join(s.cfg.topics, ",") + "]]"
}

// Schema returns the fixed Kafka schema, Schema.
func (s *Source) Schema() *arrow.Schema { return Schema }

// InitialOffset resolves startingOffsets against the brokers the first time
// it is called and returns the same offset on every later call: "earliest"
// takes each partition's log start, "latest" its end, and a JSON offset map
// resolves -2 and -1 the same way. A subscribed topic that does not exist
// yet contributes no partitions; its partitions are read from their start
// once they appear.
func (s *Source) InitialOffset(ctx context.Context) (source.Offset, error) {
	offs, err := s.initialOffsets(ctx)
	if err != nil {
		return "", s.unavailable(ctx, err)
	}
	return FormatOffset(offs), nil
}

func (s *Source) initialOffsets(ctx context.Context) (Offsets, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initial != nil {
		return s.initial, nil
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
		offs, err = s.resolveSpecific(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("kafka source: resolving startingOffsets: %w", err)
	}
	s.initial = offs
	return offs, nil
}

// resolveSpecific checks a JSON startingOffsets against the partitions that
// exist, as Spark does (every partition must be named), and resolves -2 and
// -1.
func (s *Source) resolveSpecific(ctx context.Context) (Offsets, error) {
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
		off, ok := s.cfg.specific.get(t, p)
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
	s.cfg.specific.each(func(t string, p int32, _ int64) {
		if _, ok := latest.get(t, p); !ok {
			unknown = append(unknown, fmt.Sprintf("%s-%d", t, p))
		}
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("startingOffsets must name every partition of the subscribed topics (-2 for earliest, -1 for latest); missing %s", strings.Join(missing, ", "))
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("startingOffsets names partitions that do not exist: %s", strings.Join(unknown, ", "))
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
	from, err := s.startOffsets(ctx, start)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	pinned := s.pinned
	s.mu.Unlock()

	until := pinned
	if until == nil {
		if until, err = s.lister.latest(ctx); err != nil {
			return "", err
		}
	}

	end := from.clone()
	begin := from.clone()
	var added []string
	var shrunk []string
	until.each(func(t string, p int32, u int64) {
		b, ok := from.get(t, p)
		switch {
		case !ok:
			if u > 0 {
				end.set(t, p, u)
				begin.set(t, p, 0)
				added = append(added, t)
			}
		case u < b && pinned == nil:
			// The partition went backwards: truncated, or the topic was
			// deleted and created again. Spark reports this as data loss.
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
				_, inStart := from.get(t, p)
				_, inEnd := end.get(t, p)
				if !inStart && inEnd {
					begin.set(t, p, off)
				}
			})
		}
		end = rateLimit(s.cfg.maxOffsets, begin, end)
	}
	formatted := FormatOffset(end)
	if start != "" && formatted == FormatOffset(from) {
		return start, nil
	}
	return formatted, nil
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
	s.mu.Lock()
	s.pinned = offs
	s.mu.Unlock()
	return nil
}

// GetBatch reads exactly the records at offsets [start, end) of every
// partition and passes them to fn as Arrow records of at most 64Ki rows.
// A partition absent from start is read from offset 0. The records passed
// to fn are released when fn returns.
func (s *Source) GetBatch(ctx context.Context, start, end source.Offset, fn func(arrow.RecordBatch) error) error {
	from, err := s.startOffsets(ctx, start)
	if err != nil {
		return s.unavailable(ctx, err)
	}
	until, err := ParseOffset(end)
	if err != nil {
		return fmt.Errorf("kafka source: batch end: %w", err)
	}
	if err := s.reader.read(ctx, from, until, fn); err != nil {
		return s.unavailable(ctx, fmt.Errorf("kafka source: reading %s to %s: %w", FormatOffset(from), end, err))
	}
	return nil
}

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
// records were deleted before they were read. It counts only with
// failOnDataLoss=false; otherwise such a loss fails the batch.
func (s *Source) DataLossOffsets() int64 { return s.reader.lost.Load() }

// Close closes the Kafka client, which ends a GetBatch in progress, and
// drops buffered records. Closing twice is harmless.
func (s *Source) Close() error {
	s.cl.Close()
	s.reader.close()
	return nil
}

// startOffsets parses a batch start; the empty start is the initial offset.
func (s *Source) startOffsets(ctx context.Context, start source.Offset) (Offsets, error) {
	if start == "" {
		return s.initialOffsets(ctx)
	}
	offs, err := ParseOffset(start)
	if err != nil {
		return nil, fmt.Errorf("kafka source: batch start: %w", err)
	}
	return offs, nil
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
