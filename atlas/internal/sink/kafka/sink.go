// Package kafka is the Kafka sink: Format("kafka") of a streaming query,
// with Spark's columns and options and, beyond Spark's at-least-once sink,
// exactly-once output through Kafka transactions.
//
// Each micro-batch is written in one transaction. The transactional.id is
// derived from the query id ("atlas-sink-<query id>"), which is stable
// across restarts from one checkpoint: a restarted query fences the
// producer of its previous run, so a zombie can no longer commit. The
// transaction also commits, atomically with the records, the offsets of a
// consumer group of the same name, with the batch id in the offset
// metadata ("atlas:<query id>:<batch id>"). The query writes its commit
// log entry only after the transaction committed; a batch replayed after a
// crash between the two finds its batch id in the group's committed offsets
// and is skipped. Readers with isolation.level=read_committed therefore
// see every row exactly once; read_uncommitted readers may also see
// records of aborted transactions.
package kafka

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
)

// Options configure the sink.
type Options struct {
	// Bootstrap are the brokers (kafka.bootstrap.servers).
	Bootstrap []string
	// Topic is the topic option: every row goes there, whatever its topic
	// column says; "" uses the topic column.
	Topic string
	// TransactionTimeout is kafka.transaction.timeout.ms; zero keeps the
	// client's default (40 s).
	TransactionTimeout time.Duration
}

// Sink writes micro-batches to Kafka, one transaction per batch.
type Sink struct {
	opts Options
	cols columns

	cl      *kgo.Client
	adm     *kadm.Client
	queryID string
	// committed is the last batch id whose transaction committed, -1 for
	// none; known once the client is set up.
	committed int64
	// beforeCommit, in tests, runs after the records are produced and
	// before the transaction commits.
	beforeCommit func()
}

// New checks the output schema (see Validate) and returns the sink; it
// contacts no broker until the first batch.
func New(schema *arrow.Schema, opts Options) (*Sink, error) {
	if len(opts.Bootstrap) == 0 {
		return nil, fmt.Errorf("kafka sink: no brokers: set Option(\"kafka.bootstrap.servers\", \"host:9092\")")
	}
	cols, err := resolve(schema, opts.Topic)
	if err != nil {
		return nil, err
	}
	return &Sink{opts: opts, cols: cols, committed: -1}, nil
}

// TransactionalID is the transactional.id (and consumer group) the sink
// uses for a query.
func TransactionalID(queryID string) string { return "atlas-sink-" + queryID }

// Description names the sink in progress reports.
func (s *Sink) Description() string {
	if s.opts.Topic != "" {
		return "KafkaSink[" + s.opts.Topic + "]"
	}
	return "KafkaSink"
}

// AddBatch writes the batch's rows in one transaction, committed together
// with the batch marker; a batch whose transaction already committed is
// skipped. An empty batch writes nothing.
func (s *Sink) AddBatch(ctx context.Context, b *sink.Batch) error {
	if b.NumRows() == 0 {
		return nil
	}
	if err := s.connect(ctx, b.QueryID); err != nil {
		return err
	}
	if b.BatchID <= s.committed {
		return nil // committed before a crash, replayed: already written
	}
	recs, err := toRecords(b.Records, s.cols, s.opts.Topic)
	if err != nil {
		return err
	}
	if err := s.write(ctx, b.BatchID, recs); err != nil {
		// Start afresh on the next attempt: a new producer fences
		// whatever this one left open, and the marker is read again.
		s.Close()
		return fmt.Errorf("kafka sink: batch %d: %w", b.BatchID, err)
	}
	s.committed = b.BatchID
	return nil
}

// write runs one transaction: the records, then the marker offsets.
func (s *Sink) write(ctx context.Context, batchID int64, recs []*kgo.Record) error {
	if err := s.cl.BeginTransaction(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	abort := func(cause error) error {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if err := s.cl.AbortBufferedRecords(actx); err != nil {
			return errors.Join(cause, err)
		}
		if err := s.cl.EndTransaction(actx, kgo.TryAbort); err != nil {
			return errors.Join(cause, err)
		}
		return cause
	}
	if err := s.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return abort(fmt.Errorf("produce: %w", err))
	}
	if err := s.commitMarker(ctx, batchID, recs); err != nil {
		return abort(err)
	}
	if s.beforeCommit != nil {
		s.beforeCommit()
	}
	if err := s.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		if errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) {
			return fmt.Errorf("commit: fenced by a newer run of this query (transactional.id %s): %w", TransactionalID(s.queryID), err)
		}
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// marker is the offset metadata that records a committed batch.
func marker(queryID string, batchID int64) string {
	return "atlas:" + queryID + ":" + strconv.FormatInt(batchID, 10)
}

// commitMarker adds the group's offsets to the transaction: for every
// partition written, the offset after the batch's last record there, with
// the batch marker as metadata.
func (s *Sink) commitMarker(ctx context.Context, batchID int64, recs []*kgo.Record) error {
	next := map[string]map[int32]int64{}
	for _, r := range recs {
		if next[r.Topic] == nil {
			next[r.Topic] = map[int32]int64{}
		}
		next[r.Topic][r.Partition] = max(next[r.Topic][r.Partition], r.Offset+1)
	}
	topics := make([]string, 0, len(next))
	for t := range next {
		topics = append(topics, t)
	}
	details, err := s.adm.ListTopics(ctx, topics...)
	if err != nil {
		return fmt.Errorf("topic ids: %w", err)
	}
	id, epoch, err := s.cl.ProducerID(ctx)
	if err != nil {
		return fmt.Errorf("producer id: %w", err)
	}
	group := TransactionalID(s.queryID)
	add := kmsg.NewPtrAddOffsetsToTxnRequest()
	add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = group, id, epoch, group
	addResp, err := add.RequestWith(ctx, s.cl)
	if err != nil {
		return fmt.Errorf("add offsets to transaction: %w", err)
	}
	if err := kerr.ErrorForCode(addResp.ErrorCode); err != nil {
		return fmt.Errorf("add offsets to transaction: %w", err)
	}
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = group, group, id, epoch
	req.Generation, req.MemberID = -1, ""
	meta := marker(s.queryID, batchID)
	for t, parts := range next {
		rt := kmsg.NewTxnOffsetCommitRequestTopic()
		rt.Topic = t
		rt.TopicID = details[t].ID
		for p, off := range parts {
			rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
			rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata = p, off, -1, &meta
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, s.cl)
	if err != nil {
		return fmt.Errorf("commit batch marker: %w", err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("commit batch marker for %s/%d: %w", t.Topic, p.Partition, err)
			}
		}
	}
	return nil
}

// connect makes the transactional producer (fencing any earlier run of
// the query) and reads the last committed batch id.
func (s *Sink) connect(ctx context.Context, queryID string) error {
	if s.cl != nil && s.queryID == queryID {
		return nil
	}
	s.Close()
	opts := []kgo.Opt{
		kgo.SeedBrokers(s.opts.Bootstrap...),
		kgo.ClientID("atlas-kafka-sink"),
		kgo.TransactionalID(TransactionalID(queryID)),
		kgo.RecordPartitioner(partitioner{kgo.StickyKeyPartitioner(nil)}),
		kgo.AllowAutoTopicCreation(),
		kgo.RecordRetries(10),
	}
	if s.opts.TransactionTimeout > 0 {
		opts = append(opts, kgo.TransactionTimeout(s.opts.TransactionTimeout))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("kafka sink: client for %s: %w", strings.Join(s.opts.Bootstrap, ","), err)
	}
	// InitProducerID now: it bumps the epoch, which fences a previous run's
	// producer and aborts the transaction it left open, before the marker
	// is read.
	if _, _, err := cl.ProducerID(ctx); err != nil {
		cl.Close()
		return fmt.Errorf("kafka sink: init transactional producer %s at %s: %w", TransactionalID(queryID), strings.Join(s.opts.Bootstrap, ","), err)
	}
	s.cl, s.adm, s.queryID = cl, kadm.NewClient(cl), queryID
	committed, err := LastCommittedBatch(ctx, s.adm, queryID)
	if err != nil {
		s.Close()
		return err
	}
	s.committed = committed
	return nil
}

// LastCommittedBatch returns the id of the last batch the query's Kafka
// sink committed, -1 for none, from the committed offsets of its group.
func LastCommittedBatch(ctx context.Context, adm *kadm.Client, queryID string) (int64, error) {
	group := TransactionalID(queryID)
	offs, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		if errors.Is(err, kerr.GroupIDNotFound) {
			return -1, nil
		}
		return -1, fmt.Errorf("kafka sink: read the committed batch of group %s: %w", group, err)
	}
	last := int64(-1)
	prefix := "atlas:" + queryID + ":"
	var ferr error
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Err != nil {
			ferr = o.Err
			return
		}
		if rest, ok := strings.CutPrefix(o.Metadata, prefix); ok {
			if id, err := strconv.ParseInt(rest, 10, 64); err == nil {
				last = max(last, id)
			}
		}
	})
	if ferr != nil {
		return -1, fmt.Errorf("kafka sink: read the committed batch of group %s: %w", group, ferr)
	}
	return last, nil
}

// Close releases the producer.
func (s *Sink) Close() error {
	if s.cl != nil {
		s.cl.Close()
		s.cl, s.adm = nil, nil
	}
	return nil
}

// CheckMode accepts every output mode, as Spark's Kafka sink.
func (s *Sink) CheckMode(sink.OutputMode) error { return nil }
