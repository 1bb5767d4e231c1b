package kafka

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// handle routes one poll's results to their partitions and emits what
// the batch needs. It reports whether any partition the batch needs moved.
// Every result's chunks are taken or released, also on error.
func (r *reader) handle(results []partFetch, fn func(arrow.RecordBatch) error) (progressed bool, err error) {
	for i := range results {
		pf := &results[i]
		st := r.parts[pf.topic][pf.partition]
		if st == nil || err != nil {
			releaseChunks(pf.chunks)
			continue
		}
		var moved bool
		moved, err = r.result(st, pf, fn)
		progressed = progressed || moved
	}
	return progressed, err
}

// result takes one partition's result: its records, or what its error
// means for the partition (no result with an error has records to keep).
func (r *reader) result(st *partState, pf *partFetch, fn func(arrow.RecordBatch) error) (bool, error) {
	if pf.err == nil {
		return r.receive(st, pf, fn)
	}
	releaseChunks(pf.chunks)
	var (
		lossErr *kgo.ErrDataLoss
		gone    *topicRecreatedError
	)
	switch {
	case errors.As(pf.err, &lossErr):
		// The log was truncated at ResetTo (an unclean leader election).
		// What was only buffered from there on is dropped and read again
		// from the new log; what was handed out to batches there, already
		// committed, is lost, and the records now at those offsets are
		// dropped as stale (they would land in no batch's range).
		reset := lossErr.ResetTo
		st.pending = truncateChunks(st.pending, max(reset, st.next))
		if reset >= st.next {
			st.fetched = reset
			return false, nil
		}
		if r.failOnDataLoss {
			return false, fmt.Errorf("fetching %s: %w: offsets [%d, %d) were read and are gone; set the source option failOnDataLoss to false to go on", st, pf.err, reset, st.next)
		}
		r.lost.Add(st.next - reset)
		r.loss = append(r.loss, progress.DataLoss{
			Partition: st.String(), FromOffset: reset, ToOffset: st.next,
			Reason: "the log was truncated below records already read (an unclean leader election); records at these offsets now are new",
		})
		st.fetched = st.next
		return false, nil
	case errors.As(pf.err, &gone):
		// The topic was deleted and created again under batches planned
		// (and logged) for the old topic: what was not fetched yet went
		// with it. What was fetched is handed out, the rest up to each
		// batch's end is lost (skipGone), until a batch planned with the
		// new topic id repositions the partition (Source.GetBatch
		// forgets the old topic).
		st.gone = gone
		if !st.inBatch || st.done {
			return false, nil
		}
		skipGone(st, st.end)
		return true, r.drainPending(st, fn)
	case errors.Is(pf.err, kerr.UnknownTopicID):
		// The broker does not know the topic id (yet: a new topic; or any
		// more: the topic was deleted, and is not created again yet). The
		// fetcher stopped; the next plan restarts it where it stopped,
		// keeping what was fetched (the topic created again meanwhile is
		// a *topicRecreatedError then). A batch in progress fails and is
		// retried (the error is retriable).
		st.stopped = true
		if st.inBatch && !st.done {
			return false, fmt.Errorf("fetching %s: %w", st, pf.err)
		}
		return false, nil
	default:
		st.consuming = false // reposition before reading it again
		if st.inBatch && !st.done {
			return false, fmt.Errorf("fetching %s: %w", st, pf.err)
		}
		return false, nil
	}
}

// receive takes the chunks of one fetched partition and hands out what the
// batch needs. It reports whether the partition was in the batch and moved
// towards its batch end.
func (r *reader) receive(st *partState, pf *partFetch, fn func(arrow.RecordBatch) error) (bool, error) {
	active := st.inBatch && !st.done
	chunks := pf.chunks
	// A partition without records says nothing, and anything older than
	// what we already have is stale (replacements after a truncation).
	if pf.next <= st.fetched {
		releaseChunks(chunks)
		return false, nil
	}
	for len(chunks) > 0 && chunks[0].end <= st.fetched {
		chunks[0].release()
		chunks = chunks[1:]
	}
	if len(chunks) > 0 && len(chunks[0].offs) > 0 {
		chunks[0].head = chunks[0].before(st.fetched)
	}
	if pf.first > st.fetched && pf.logStart > st.fetched {
		// The records in between were deleted (retention, DeleteRecords)
		// before we read them; compaction leaves the log start alone.
		st.losses = append(st.losses, offsetRange{from: st.fetched, to: min(pf.logStart, pf.first)})
	}
	st.fetched = pf.next
	st.pending = append(st.pending, chunks...)
	if !active {
		r.maybePause(st)
		return false, nil
	}
	if err := r.drainPending(st, fn); err != nil {
		return true, err
	}
	r.maybePause(st)
	return true, nil
}

// skipGone counts st's offsets from what was fetched up to end as lost
// with their topic, once it was deleted (st.gone): a chunk without rows
// covers them, so that the batch completes.
func skipGone(st *partState, end int64) {
	if st.gone == nil || st.fetched >= end {
		return
	}
	st.losses = append(st.losses, offsetRange{from: st.fetched, to: end, reason: fmt.Sprintf("%v before they were read", st.gone)})
	st.pending = append(st.pending, &chunk{end: end})
	st.fetched = end
}

// truncateChunks drops the rows at offsets >= at from cs (a partition's
// pending chunks, contiguous and ascending) and returns what is left: the
// chunk that spans at keeps its rows before at (none, if it has none) and
// ends at at, so that the offsets before at stay covered.
func truncateChunks(cs []*chunk, at int64) []*chunk {
	for i, c := range cs {
		if c.end <= at {
			continue
		}
		k := c.before(at)
		if k > c.head {
			rec := c.rec.NewSlice(0, int64(k))
			c.rec.Release()
			c.rec = rec
		} else {
			c.release()
		}
		c.offs, c.end = c.offs[:k], at
		releaseChunks(cs[i+1:])
		clear(cs[i+1:])
		return cs[:i+1]
	}
	return cs
}

// releaseResults releases the chunks of results no one takes.
func releaseResults(results []partFetch) {
	for _, pf := range results {
		releaseChunks(pf.chunks)
	}
}
