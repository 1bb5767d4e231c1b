package kafka

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
)

// fetchAhead is a goroutine that keeps polling the client between two
// batches, converting what arrives to chunks, so that fetching, decoding
// and Arrow building go on while the query commits a batch and plans the
// next (the offsets of the next batch are still decided and logged before
// it reads, as before: this only fills the buffer it will read from).
type fetchAhead struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startAhead starts fetching ahead until the next read. The caller holds
// r.mu.
func (r *reader) startAhead() {
	ctx, cancel := context.WithCancel(context.Background())
	a := &fetchAhead{cancel: cancel, done: make(chan struct{})}
	r.ahead = a
	go r.fetchAhead(ctx, a.done)
}

// stopAhead stops fetching ahead and waits until what the last poll
// brought is in the buffers. The caller does not hold r.mu.
func (r *reader) stopAhead() {
	r.mu.Lock()
	a := r.ahead
	r.ahead = nil
	r.mu.Unlock()
	if a != nil {
		a.cancel()
		<-a.done
	}
}

// fetchAhead polls until ctx is cancelled, a poll brings no records (the
// stream is caught up, or every partition with records buffered is
// paused), the buffers are full (aheadFull) or a poll fails. No partition
// is in a batch meanwhile, so what arrives is only converted and buffered
// (and partitions paused past pauseAfter). A failure is kept for the next
// read, which returns it as its own.
func (r *reader) fetchAhead(ctx context.Context, done chan struct{}) {
	defer close(done)
	for ctx.Err() == nil {
		// Check the bounds before polling too: when batches are smaller
		// than what the buffers already hold, a poll after every batch
		// would add a fetch each time, and the rows held ahead would grow
		// with the stream (batches of 25,000: 3.1 million rows, 418 MB,
		// after 2.5 million events).
		r.mu.Lock()
		r.applyTrims()
		r.resumeDrained()
		full := r.closed || r.aheadFull()
		r.mu.Unlock()
		if full {
			return
		}
		results, err := r.f.poll(ctx)
		r.mu.Lock()
		if r.closed {
			releaseResults(results)
			r.mu.Unlock()
			return
		}
		r.applyTrims()
		n := len(results)
		if err == nil {
			_, err = r.handle(results, func(arrow.RecordBatch) error {
				return errors.New("internal error: a record was handed out between batches")
			})
		}
		if err != nil && r.aheadErr == nil {
			r.aheadErr = err
		}
		full = r.aheadFull()
		r.mu.Unlock()
		if err != nil || n == 0 || full {
			return
		}
	}
}

// aheadFull reports whether fetching ahead has buffered enough: the
// buffers hold aheadMaxBytes, or the partitions being fetched hold
// aheadRows records each on average (so also when each holds aheadRows,
// or none is being fetched). The average keeps a partition that brings
// fewer records per fetch (or none: it is caught up) from letting the
// others grow until they are paused, which would drop what the client
// fetched for them. The caller holds r.mu.
func (r *reader) aheadFull() bool {
	if r.pendingBytes() >= r.aheadMaxBytes {
		return true
	}
	rows, parts := 0, 0
	for _, ps := range r.parts {
		for _, st := range ps {
			if st.consuming && !st.paused {
				rows += st.pendingRows()
				parts++
			}
		}
	}
	return rows >= r.aheadRows*parts
}

// pendingRows is the number of rows buffered for st.
func (st *partState) pendingRows() int {
	n := 0
	for _, c := range st.pending {
		n += c.rows()
	}
	return n
}

// pendingBytes is the size of the chunks buffered for every partition.
func (r *reader) pendingBytes() int {
	n := 0
	for _, ps := range r.parts {
		for _, st := range ps {
			for _, c := range st.pending {
				n += c.bytes
			}
		}
	}
	return n
}

// resumeDrained resumes fetching the paused partitions whose buffered rows
// fell below aheadRows, so that they are refilled before a batch needs
// them. Between pausing at pauseAfter and resuming here, a partition that
// brings more records per fetch than the batches take from it (the
// partitions of a topic hold different shares of it, fetches bring about
// the same bytes of each) is paused about once every few batches, rather
// than at every batch: each pause drops what the client fetched for it.
// The caller holds r.mu.
func (r *reader) resumeDrained() {
	var resume map[string][]int32
	for t, ps := range r.parts {
		for p, st := range ps {
			if st.paused && st.consuming && st.pendingRows() < r.aheadRows {
				if resume == nil {
					resume = make(map[string][]int32)
				}
				resume[t] = append(resume[t], p)
				st.paused = false
			}
		}
	}
	if resume != nil {
		r.f.resume(resume)
	}
}

// maybePause stops fetching a partition the batch does not need once it has
// buffered many records, so that a fast partition cannot fill memory while a
// slow one catches up.
func (r *reader) maybePause(st *partState) {
	if st.paused {
		return
	}
	if st.pendingRows() < r.pauseAfter {
		return
	}
	st.paused = true
	r.pauses++
	r.f.pause(map[string][]int32{st.topic: {st.partition}})
}

// trim drops buffered records before the committed offsets. It only
// notes them: the next read, or fetching ahead, drops the records under
// r.mu, so that committing a batch never waits while fetching ahead holds
// r.mu to convert a fetch (bench windows, 10M events: 13 ms per batch).
func (r *reader) trim(committed Offsets) {
	r.trimMu.Lock()
	defer r.trimMu.Unlock()
	r.toTrim = append(r.toTrim, committed)
}

// applyTrims drops what trim noted. The caller holds r.mu.
func (r *reader) applyTrims() {
	r.trimMu.Lock()
	list := r.toTrim
	r.toTrim = nil
	r.trimMu.Unlock()
	for _, committed := range list {
		r.trimLocked(committed)
	}
}

func (r *reader) trimLocked(committed Offsets) {
	committed.each(func(t string, p int32, off int64) {
		st := r.parts[t][p]
		if st == nil {
			return
		}
		for len(st.pending) > 0 {
			c := st.pending[0]
			c.head = c.before(off)
			if c.rows() > 0 || c.end > off {
				break
			}
			c.release()
			st.pending[0] = nil
			st.pending = st.pending[1:]
		}
	})
}
