package kafka

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Batch is Spark's Kafka batch source, spark.read.format("kafka"): it
// reads the records between startingOffsets (earliest by default) and
// endingOffsets (latest by default, as listed when Read is called) once,
// with the streaming source's schema (Schema), plus Spark's headers
// column with includeHeaders=true (SchemaWithHeaders).
type Batch struct {
	src *Source
}

// NewBatch creates a batch read from Spark's options: those of New, plus
// endingOffsets ("latest" or JSON, -1 meaning latest). As in Spark a batch
// read cannot start at latest nor end at earliest, and the trigger options
// (maxOffsetsPerTrigger, minOffsetsPerTrigger, maxTriggerDelay) are
// ignored: Warnings says so. NewBatch does not contact the brokers.
func NewBatch(opts map[string]string) (*Batch, error) {
	cfg, err := parseOptionsFor(opts, true)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(clientOptions(cfg, nil)...)
	if err != nil {
		return nil, fmt.Errorf("kafka source: creating client for %s: %w", strings.Join(cfg.bootstrap, ","), err)
	}
	return &Batch{src: &Source{
		cfg:    cfg,
		cl:     cl,
		lister: &offsetLister{cl: cl, adm: kadm.NewClient(cl), topics: cfg.topics, readCommitted: cfg.readCommitted, pattern: cfg.pattern, assigned: cfg.assigned},
		reader: newReader(cl, cfg),
	}}, nil
}

// Schema is the schema of the records Read yields: Schema, or
// SchemaWithHeaders with includeHeaders=true.
func (b *Batch) Schema() *arrow.Schema {
	if b.src.cfg.includeHeaders {
		return SchemaWithHeaders
	}
	return Schema
}

// Description names the read as the streaming source does.
func (b *Batch) Description() string { return b.src.Description() }

// Warnings are the warnings Spark logs for the options: the trigger
// options it ignores in a batch read.
func (b *Batch) Warnings() []string { return append([]string(nil), b.src.cfg.warnings...) }

// Offsets resolves the range the read covers: startingOffsets and
// endingOffsets against the partitions that exist now. As in Spark both
// must cover the same partitions, and no partition may end before it
// starts.
func (b *Batch) Offsets(ctx context.Context) (from, until Offsets, err error) {
	s := b.src
	from, _, err = s.initialOffsets(ctx)
	if err != nil {
		return nil, nil, err
	}
	if s.cfg.endSpecific != nil {
		until, err = s.resolveSpecific(ctx, "endingOffsets", s.cfg.endSpecific)
		if err != nil {
			return nil, nil, fmt.Errorf("kafka source: resolving endingOffsets: %w", err)
		}
	} else if until, err = s.lister.latest(ctx); err != nil {
		return nil, nil, fmt.Errorf("kafka source: listing the latest offsets: %w", err)
	}
	if a, z := partitionNames(from), partitionNames(until); a != z {
		return nil, nil, fmt.Errorf("kafka source: different topic partitions for starting offsets [%s] and ending offsets [%s]", a, z)
	}
	var bad []string
	from.each(func(t string, p int32, off int64) {
		if end, _ := until.get(t, p); end < off {
			bad = append(bad, fmt.Sprintf("%s-%d starts at %d after its end %d", t, p, off, end))
		}
	})
	if len(bad) > 0 {
		return nil, nil, fmt.Errorf("kafka source: the starting offset is after the ending offset: %s; give offsets with startingOffsets <= endingOffsets", strings.Join(bad, ", "))
	}
	return from, until, nil
}

// Read reads the records of the range Offsets resolves and passes them to
// fn as records of Schema, valid during the call (Retain to keep one). A
// record that is gone (retention, DeleteRecords) fails the read unless
// failOnDataLoss is false.
func (b *Batch) Read(ctx context.Context, fn func(arrow.RecordBatch) error) error {
	from, until, err := b.Offsets(ctx)
	if err != nil {
		return err
	}
	if !b.src.cfg.includeHeaders {
		if _, err := b.src.reader.read(ctx, from, until, fn); err != nil {
			return fmt.Errorf("kafka source: reading %s to %s: %w", FormatOffset(from), FormatOffset(until), err)
		}
		return nil
	}
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	_, err = b.src.reader.read(ctx, from, until, func(rec arrow.RecordBatch) error {
		rec.Retain()
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return fmt.Errorf("kafka source: reading %s to %s: %w", FormatOffset(from), FormatOffset(until), err)
	}
	return b.withHeaders(ctx, recs, fn)
}

// Close closes the Kafka client.
func (b *Batch) Close() error { return b.src.Close() }

// partitionNames lists the partitions of o as "t-p, ...", sorted.
func partitionNames(o Offsets) string {
	var names []string
	o.each(func(t string, p int32, _ int64) { names = append(names, fmt.Sprintf("%s-%d", t, p)) })
	sort.Strings(names)
	return strings.Join(names, ", ")
}
