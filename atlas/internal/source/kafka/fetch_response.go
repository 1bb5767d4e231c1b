package kafka

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// outcome is what one partition of a Fetch response does to its
// fetchPart and to the results.
type outcome struct {
	spec fetchSpec
	// result goes to poll when it carries chunks or an error.
	result partFetch
	// offset is where the partition's next fetch starts, epoch the leader
	// epoch of the batch that ends there (-1 unknown); offset -1 keeps
	// both.
	offset int64
	epoch  int32
	// relookup asks for the partition's leader again after retryErr, a
	// retriable error.
	relookup bool
	retryErr error
	// failed stops fetching the partition until it is added again.
	failed bool
}

// decode turns resp into one outcome per spec, decoding the partitions
// with records in parallel, each with its own decoder.
func (f *fetcher) decode(specs []fetchSpec, resp *kmsg.FetchResponse) []outcome {
	type key struct {
		topic     string
		partition int32
	}
	index := make(map[key]int, len(specs))
	byID := map[[16]byte]string{}
	for i, s := range specs {
		index[key{s.topic, s.partition}] = i
		byID[s.topicID] = s.topic
	}
	out := make([]outcome, len(specs))
	for i, s := range specs {
		out[i] = outcome{spec: s, offset: -1, epoch: -1, result: partFetch{topic: s.topic, partition: s.partition, first: -1, next: -1}}
	}
	var wg sync.WaitGroup
	// At most one partition per core is decoded at a time: each decoder
	// keeps a decompression buffer and a builder, so a response of many
	// partitions must not make one of each per partition.
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for ti := range resp.Topics {
		rt := &resp.Topics[ti]
		topic := rt.Topic
		if topic == "" {
			topic = byID[rt.TopicID]
		}
		for pi := range rt.Partitions {
			rp := &rt.Partitions[pi]
			i, ok := index[key{topic, rp.Partition}]
			if !ok {
				continue
			}
			o := &out[i]
			o.result.logStart = rp.LogStartOffset
			if rp.ErrorCode != 0 {
				f.fetchError(o, rp)
				continue
			}
			if de := rp.DivergingEpoch; de.EndOffset >= 0 && de.Epoch >= 0 {
				f.diverged(o, de)
				continue
			}
			if len(rp.RecordBatches) == 0 {
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				f.decodeRecords(o, rp)
			}()
		}
	}
	wg.Wait()
	return out
}

// decodeRecords decodes rp's record batches into o.
func (f *fetcher) decodeRecords(o *outcome, rp *kmsg.FetchResponseTopicPartition) {
	d := f.decoder()
	defer f.putDecoder(d)
	s := o.spec
	var (
		chunks      []*chunk
		first, next int64
		ok          bool
		err         error
	)
	epoch := int32(-1)
	if !f.readCommitted || len(rp.AbortedTransactions) == 0 {
		chunks, first, next, ok, err = d.decodePartition(s.topic, rp, s.offset)
		epoch = d.epoch()
	}
	if !ok && err == nil {
		// Message sets of magic 0 and 1, and aborted transactions under
		// read_committed: franz-go's decoding, then the copy into Arrow.
		chunks, first, next, err = f.decodeWithFranz(d.b, s, rp)
	}
	if err != nil {
		o.result.err = fmt.Errorf("decoding %s-%d at offset %d: %w", s.topic, s.partition, s.offset, err)
		o.failed = true
		return
	}
	for _, c := range chunks {
		f.decoded.Add(int64(len(c.offs)))
	}
	o.result.chunks, o.result.first, o.result.next = chunks, first, next
	if next >= 0 {
		o.offset, o.epoch = next, epoch
	}
}

// diverged handles a leader saying that its log diverged from what was
// fetched (KIP-320: the batch of epoch s.epoch the fetch offset follows
// is not in its log): everything from de.EndOffset to the fetch offset was
// truncated (an unclean leader election). Fetching goes on from there, and
// the reader gets a kgo.ErrDataLoss, as franz-go reports it.
func (f *fetcher) diverged(o *outcome, de kmsg.FetchResponseTopicPartitionDivergingEpoch) {
	s := o.spec
	reset := min(de.EndOffset, s.offset)
	o.offset, o.epoch = reset, de.Epoch
	o.result.err = &kgo.ErrDataLoss{Topic: s.topic, Partition: s.partition, ConsumedTo: s.offset, ConsumedToEpoch: s.epoch, ResetTo: reset, ResetToEpoch: de.Epoch}
}

// decodeWithFranz decodes rp with kgo.ProcessFetchPartition and copies the
// records into chunks of b.
func (f *fetcher) decodeWithFranz(b *batchBuilder, s fetchSpec, rp *kmsg.FetchResponseTopicPartition) (chunks []*chunk, first, next int64, err error) {
	opts := kgo.ProcessFetchPartitionOpts{KeepControlRecords: true, Offset: s.offset, Topic: s.topic, Partition: s.partition}
	if f.readCommitted {
		opts.IsolationLevel = kgo.ReadCommitted()
	}
	fp, nextOffset := kgo.ProcessFetchPartition(opts, rp, f.decompressor, nil)
	if fp.Err != nil {
		return nil, -1, -1, fp.Err
	}
	if nextOffset <= s.offset {
		return nil, -1, -1, nil
	}
	if len(fp.Records) == 0 {
		// Only aborted or compacted batches: nothing to hand out, but the
		// offsets up to nextOffset were read.
		return []*chunk{{end: nextOffset}}, nextOffset, nextOffset, nil
	}
	first = fp.Records[0].Offset
	chunks, err = newChunks(b, fp.Records)
	if err != nil {
		return nil, -1, -1, err
	}
	chunks[len(chunks)-1].end = max(chunks[len(chunks)-1].end, nextOffset)
	return chunks, first, nextOffset, nil
}

// fetchError sets o for a partition error code.
func (f *fetcher) fetchError(o *outcome, rp *kmsg.FetchResponseTopicPartition) {
	err := kerr.ErrorForCode(rp.ErrorCode)
	s := o.spec
	switch {
	case errors.Is(err, kerr.OffsetOutOfRange):
		f.outOfRange(o)
	case errors.Is(err, kerr.UnknownTopicID):
		// The topic was deleted (and maybe created again), or the broker
		// does not know it yet: stop, rather than read a new topic's
		// records at the old topic's offsets; the reader decides
		// (unknownTopicID says which it is).
		o.result.err = f.unknownTopicID(s)
		o.failed = true
	case kerr.IsRetriable(err) || errors.Is(err, kerr.UnknownTopicOrPartition):
		o.relookup = true
		o.retryErr = fmt.Errorf("fetching %s-%d at offset %d: %w", s.topic, s.partition, s.offset, err)
	default:
		o.result.err = fmt.Errorf("fetching %s-%d at offset %d: %w", s.topic, s.partition, s.offset, err)
		o.failed = true
	}
}

// topicRecreatedError is a fetch by a topic id that the topic no longer
// has: it was deleted and created again, and the old topic's records that
// were not fetched yet are gone.
type topicRecreatedError struct {
	topic        string
	oldID, newID string
}

func (e *topicRecreatedError) Error() string {
	return fmt.Sprintf("topic %s was deleted and created again (topic id %s, now %s)", e.topic, e.oldID, e.newID)
}

// Unwrap makes the error a kerr.UnknownTopicID, the broker's answer.
func (e *topicRecreatedError) Unwrap() error { return kerr.UnknownTopicID }

// unknownTopicID is the error for a fetch of s answered UNKNOWN_TOPIC_ID:
// a *topicRecreatedError when the topic now has another id, else the
// broker's error (the topic is gone, or the broker does not know the id
// yet: the batch is retried).
func (f *fetcher) unknownTopicID(s fetchSpec) error {
	ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
	defer cancel()
	lister := &offsetLister{cl: f.cl, adm: f.adm}
	ids, err := lister.topicIDs(ctx, s.topic)
	old := kadm.TopicID(s.topicID).String()
	if cur := ids[s.topic]; err == nil && cur != "" && s.topicID != ([16]byte{}) && cur != old {
		return &topicRecreatedError{topic: s.topic, oldID: old, newID: cur}
	}
	return kerr.UnknownTopicID
}

// outOfRange moves a partition whose fetch offset is outside its log: to
// the log start when it is below (the reader sees the gap in the next
// fetch's log start and reports it), to the log end with a
// kgo.ErrDataLoss when it is above (the log was truncated below what was
// read). An offset inside the log was refused for its LastFetchedEpoch
// (see the default case), or the log moved meanwhile.
func (f *fetcher) outOfRange(o *outcome) {
	s := o.spec
	ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
	defer cancel()
	lister := &offsetLister{adm: f.adm, readCommitted: f.readCommitted}
	starts, err := lister.earliest(ctx, s.topic)
	if err != nil {
		o.relookup = true
		return
	}
	ends, err := lister.latest(ctx, s.topic)
	if err != nil {
		o.relookup = true
		return
	}
	start, sok := starts.get(s.topic, s.partition)
	end, eok := ends.get(s.topic, s.partition)
	switch {
	case !sok || !eok:
		o.relookup = true
	case s.offset < start:
		o.offset = start
		o.result.logStart = start
	case s.offset > end:
		o.offset = end
		o.result.err = &kgo.ErrDataLoss{Topic: s.topic, Partition: s.partition, ConsumedTo: s.offset, ResetTo: end}
	case s.epoch >= 0:
		// The leader could not place the epoch the fetch sent as
		// LastFetchedEpoch (newer than any epoch it knows: a topic
		// recreated under a Fetch version without topic ids, a lost epoch
		// cache); Kafka answers that with OFFSET_OUT_OF_RANGE, and would
		// answer the same fetch the same way forever. Fetch the offset
		// again without it, as franz-go always does.
		o.offset, o.epoch = s.offset, -1
	default:
		// In range again (the log moved meanwhile): fetch again after the
		// leader is looked up, not at once, in case it stays so.
		o.relookup = true
	}
}

// deliver applies outcomes to the partitions they still belong to and
// queues their results for poll.
func (f *fetcher) deliver(l *brokerLoop, outcomes []outcome) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range outcomes {
		o := &outcomes[i]
		fp := f.parts[o.spec.topic][o.spec.partition]
		if fp == nil || fp.gen != o.spec.gen || f.closed {
			releaseChunks(o.result.chunks)
			continue
		}
		fp.inflight = false
		if o.offset >= 0 {
			fp.offset, fp.epoch = o.offset, o.epoch
		}
		if o.relookup {
			fp.leader = -1
			if o.retryErr != nil {
				fp.retrying(o.retryErr)
			}
		} else {
			fp.retryErr = nil
		}
		if o.failed {
			fp.failed = true
		}
		if len(o.result.chunks) > 0 || o.result.err != nil {
			o.result.loop = l
			f.results = append(f.results, o.result)
			l.unpolled++
		}
	}
	f.changed()
	f.ensureMetadata()
}

// decoder returns an idle decoder, or a new one building the columns
// prune set.
func (f *fetcher) decoder() *fetchDecoder {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.decoders); n > 0 {
		d := f.decoders[n-1]
		f.decoders = f.decoders[:n-1]
		return d
	}
	b := newBatchBuilder(f.maxRows, batchMaxBytes)
	b.prune(f.read)
	return newFetchDecoder(b, false)
}

func (f *fetcher) putDecoder(d *fetchDecoder) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		d.b.release()
		return
	}
	f.decoders = append(f.decoders, d)
}
