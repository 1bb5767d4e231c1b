package kafka

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Headers of a batch read (includeHeaders=true). The source's decoder
// reads past headers (the streaming hot path has no use for them), so a
// batch read that wants them reads the records as usual, then fetches the
// same offsets once more with franz-go's consumer, which parses headers,
// and joins them to the rows by partition and offset.

type recordID struct {
	topic     string
	partition int32
	offset    int64
}

// withHeaders passes recs to fn with the headers column appended.
func (b *Batch) withHeaders(ctx context.Context, recs []arrow.RecordBatch, fn func(arrow.RecordBatch) error) error {
	// Each partition's first and last offset read.
	type span struct{ first, last int64 }
	spans := map[string]map[int32]*span{}
	for _, rec := range recs {
		topic := rec.Column(colTopic).(*array.String)
		part := rec.Column(colPartition).(*array.Int32)
		off := rec.Column(colOffset).(*array.Int64)
		for i := range int(rec.NumRows()) {
			t, p, o := topic.Value(i), part.Value(i), off.Value(i)
			if spans[t] == nil {
				spans[t] = map[int32]*span{}
			}
			if s := spans[t][p]; s == nil {
				spans[t][p] = &span{o, o}
			} else {
				s.first, s.last = min(s.first, o), max(s.last, o)
			}
		}
	}
	headers := map[recordID][]kgo.RecordHeader{}
	if len(spans) > 0 {
		start := map[string]map[int32]kgo.Offset{}
		pending := 0
		for t, ps := range spans {
			start[t] = map[int32]kgo.Offset{}
			for p, s := range ps {
				start[t][p] = kgo.NewOffset().At(s.first)
				pending++
			}
		}
		opts := []kgo.Opt{kgo.SeedBrokers(b.src.cfg.bootstrap...), kgo.ClientID(b.src.cfg.clientID), kgo.ConsumePartitions(start)}
		if b.src.cfg.readCommitted {
			opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return fmt.Errorf("kafka source: reading headers: %w", err)
		}
		defer cl.Close()
		done := map[string]map[int32]bool{}
		for pending > 0 {
			fs := cl.PollFetches(ctx)
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("kafka source: reading headers: %w", err)
			}
			var ferr error
			fs.EachError(func(t string, p int32, err error) {
				if ferr == nil {
					ferr = fmt.Errorf("kafka source: reading the headers of %s-%d: %w", t, p, err)
				}
			})
			if ferr != nil {
				return ferr
			}
			fs.EachRecord(func(r *kgo.Record) {
				s := spans[r.Topic][r.Partition]
				if s == nil || r.Offset > s.last || done[r.Topic][r.Partition] {
					return
				}
				if len(r.Headers) > 0 {
					headers[recordID{r.Topic, r.Partition, r.Offset}] = r.Headers
				}
				if r.Offset == s.last {
					if done[r.Topic] == nil {
						done[r.Topic] = map[int32]bool{}
					}
					done[r.Topic][r.Partition] = true
					pending--
				}
			})
		}
	}
	for _, rec := range recs {
		col := headerColumn(rec, headers)
		cols := append(append([]arrow.Array(nil), rec.Columns()...), col)
		out := array.NewRecordBatch(SchemaWithHeaders, cols, rec.NumRows())
		col.Release()
		err := fn(out)
		out.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// headerColumn builds the headers of rec's rows: null for a record
// without headers, as Spark's KafkaRecordToRowConverter gives.
func headerColumn(rec arrow.RecordBatch, headers map[recordID][]kgo.RecordHeader) arrow.Array {
	lb := array.NewListBuilder(memory.DefaultAllocator, HeaderType.Elem())
	defer lb.Release()
	sb := lb.ValueBuilder().(*array.StructBuilder)
	kb := sb.FieldBuilder(0).(*array.StringBuilder)
	vb := sb.FieldBuilder(1).(*array.BinaryBuilder)
	topic := rec.Column(colTopic).(*array.String)
	part := rec.Column(colPartition).(*array.Int32)
	off := rec.Column(colOffset).(*array.Int64)
	for i := range int(rec.NumRows()) {
		hs := headers[recordID{topic.Value(i), part.Value(i), off.Value(i)}]
		if len(hs) == 0 {
			lb.AppendNull()
			continue
		}
		lb.Append(true)
		for _, h := range hs {
			sb.Append(true)
			kb.Append(h.Key)
			if h.Value == nil {
				vb.AppendNull()
			} else {
				vb.Append(h.Value)
			}
		}
	}
	return lb.NewArray()
}
