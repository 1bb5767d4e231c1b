package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

const (
	// stallTimeout is how long a poll may bring nothing for a partition the
	// batch still needs before the reader asks the broker whether the
	// missing records were deleted (retention) or truncated away.
	stallTimeout = time.Second
	// fetchErrorTimeout is how long a batch waits for a partition whose
	// fetches keep failing with a retriable error (a leader that does
	// not lead, a log dir offline) before it fails, naming the partition
	// and the error, as a wait for the broker: Spark's
	// kafkaConsumer.pollTimeoutMs default (spark.network.timeout).
	fetchErrorTimeout = 120 * time.Second
	// aheadRows is how many records fetching ahead between batches buffers
	// for each partition before it stops polling: about what a micro-batch
	// of 200k records over three partitions reads from each. Reading
	// further ahead does not feed the query faster, and the rows held (as
	// Arrow chunks, converted on arrival) add to the query's peak RSS on a
	// long stream. Fetching ahead stops by no longer polling, not by
	// pausing: the client then keeps the one fetch it has, which the next
	// read takes.
	aheadRows = 1 << 16
	// pauseAfter is how many records a partition may buffer beyond its
	// batch's end before the reader pauses fetching it, so that a fast
	// partition cannot fill memory while a slow one catches up or a batch
	// reads the others. Pausing only stops new fetches of the partition:
	// what was fetched for it is kept (franz-go's consumer dropped it, and
	// this bound was four times higher to avoid decoding records twice).
	// The same as aheadRows, it bounds what a batch buffers ahead as
	// fetching ahead between batches does (bench windows, 20M events: peak
	// RSS 216 MB in 3 runs, 232-252 MB with 256k).
	pauseAfter = aheadRows
	// aheadMaxBytes bounds what fetching ahead between batches buffers
	// over all partitions: past it, the reader waits for the next batch,
	// so that a topic of many partitions does not buffer aheadRows
	// records in each.
	aheadMaxBytes = 64 << 20
)

// reader turns [start, end) offset ranges into Arrow records with one
// long-lived client and its fetcher. Fetching never stops between batches:
// records fetched past a batch's end are kept for the next batch, and a
// partition is repositioned only when a batch does not start where the
// last one ended.
type reader struct {
	cl                *kgo.Client
	f                 *fetcher
	adm               *kadm.Client
	failOnDataLoss    bool
	readCommitted     bool
	stallTimeout      time.Duration
	fetchErrorTimeout time.Duration
	aheadRows         int
	pauseAfter        int
	aheadMaxBytes     int

	mu     sync.Mutex
	parts  map[string]map[int32]*partState
	active []*partState // partitions the current batch still reads
	// remaining counts active partitions that are not complete yet.
	remaining int
	closed    bool

	lost atomic.Int64
	// pauses counts the partitions paused (maybePause) over the reader's
	// life: each drops what the client had fetched for the partition.
	pauses int
	// loss lists what the batch in progress skipped (failOnDataLoss=false),
	// including what fetching ahead between batches noticed.
	loss []progress.DataLoss

	// ahead is the goroutine fetching ahead between batches, nil when
	// none runs; aheadErr is what it failed with, for the next batch.
	ahead    *fetchAhead
	aheadErr error

	// toTrim are committed offsets whose records are yet to be dropped
	// (see trim), guarded by trimMu.
	trimMu sync.Mutex
	toTrim []Offsets
}

// partState is the reader's view of one partition.
type partState struct {
	topic     string
	partition int32

	// consuming says the fetcher has the partition assigned.
	consuming bool
	paused    bool
	// next is the offset of the first record not yet handed out: every
	// record before it was emitted or skipped.
	next int64
	// fetched is the offset after the last record received from the
	// fetcher; anything older that still arrives is a stale duplicate.
	fetched int64
	// pending holds what was received but not handed out, in offset
	// order, all at offsets >= next.
	pending []*chunk
	// losses are offset ranges the broker deleted before they were read,
	// noticed while fetching and charged to the batch that covers them.
	losses []offsetRange
	// gone says the fetcher stopped because the topic was deleted and
	// created again: nothing more comes until the partition is
	// repositioned.
	gone *topicRecreatedError
	// stopped says the fetcher stopped after an error a later fetch may
	// not have: the next plan adds it again at fetched, keeping pending.
	stopped bool

	// For the batch in progress: whether the partition is in it, its
	// end, and whether every record before the end was handed out.
	inBatch bool
	end     int64
	done    bool
}

// offsetRange is a range of offsets lost; reason says why, when it is not
// retention, DeleteRecords or truncation.
type offsetRange struct {
	from, to int64
	reason   string
}

func (st *partState) String() string { return fmt.Sprintf("%s-%d", st.topic, st.partition) }

func newReader(cl *kgo.Client, cfg *config) *reader {
	return &reader{
		cl:                cl,
		f:                 newFetcher(cl, cfg),
		adm:               kadm.NewClient(cl),
		failOnDataLoss:    cfg.failOnDataLoss,
		readCommitted:     cfg.readCommitted,
		stallTimeout:      stallTimeout,
		fetchErrorTimeout: fetchErrorTimeout,
		aheadRows:         aheadRows,
		pauseAfter:        pauseAfter,
		aheadMaxBytes:     aheadMaxBytes,
		parts:             make(map[string]map[int32]*partState),
	}
}

func (r *reader) state(t string, p int32) *partState {
	ps := r.parts[t]
	if ps == nil {
		ps = make(map[int32]*partState)
		r.parts[t] = ps
	}
	st := ps[p]
	if st == nil {
		st = &partState{topic: t, partition: p}
		ps[p] = st
	}
	return st
}

// read hands fn every record in [start, end) of every partition in end and
// returns the ranges it skipped because their records were gone (only with
// failOnDataLoss=false).
func (r *reader) read(ctx context.Context, start, end Offsets, fn func(arrow.RecordBatch) error) ([]progress.DataLoss, error) {
	r.stopAhead()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errors.New("the source is closed")
	}
	r.applyTrims()
	defer func() { r.loss = nil }()
	if err := r.aheadErr; err != nil {
		r.aheadErr = nil
		r.repositionAll()
		return nil, fmt.Errorf("fetching ahead: %w", err)
	}
	if err := r.readLocked(ctx, start, end, fn); err != nil {
		return nil, err
	}
	r.startAhead()
	return r.loss, nil
}

// repositionAll makes the next read reposition every partition rather
// than trust the buffered state.
func (r *reader) repositionAll() {
	for _, ps := range r.parts {
		for _, st := range ps {
			st.next = -1
		}
	}
}

func (r *reader) readLocked(ctx context.Context, start, end Offsets, fn func(arrow.RecordBatch) error) (err error) {
	defer func() {
		if err != nil {
			// The batch will be retried from its start, and the poll that
			// failed may have carried records of other partitions that were
			// never taken: make the next read reposition every partition
			// rather than trust a half-read state.
			r.repositionAll()
		}
		for _, st := range r.active {
			st.inBatch = false
		}
		r.active = r.active[:0]
		r.remaining = 0
	}()

	if err := r.plan(start, end); err != nil {
		return err
	}
	for _, st := range r.active {
		if err := r.drainPending(st, fn); err != nil {
			return err
		}
	}
	lastProgress := time.Now()
	for r.remaining > 0 {
		pctx, cancel := context.WithTimeout(ctx, r.stallTimeout)
		results, err := r.f.poll(pctx)
		cancel()
		if err != nil {
			return fmt.Errorf("fetching: %w", err)
		}
		if err := ctx.Err(); err != nil {
			releaseResults(results)
			return fmt.Errorf("waiting for records: %w", err)
		}
		progressed, err := r.handle(results, fn)
		if err != nil {
			return err
		}
		if progressed {
			lastProgress = time.Now()
		} else if time.Since(lastProgress) >= r.stallTimeout {
			if err := r.checkStalled(ctx); err != nil {
				return err
			}
			lastProgress = time.Now()
		}
	}
	return nil
}

// plan sets up the batch: which partitions to read up to where, and which
// must be repositioned because the batch does not start where the client
// is.
func (r *reader) plan(start, end Offsets) error {
	var (
		reposition = make(map[string]map[int32]int64)
		remove     = make(map[string][]int32)
		resume     = make(map[string][]int32)
	)
	var backwards []string
	end.each(func(t string, p int32, e int64) {
		s, _ := start.get(t, p) // a partition new since start begins at 0
		if e < s {
			backwards = append(backwards, fmt.Sprintf("%s-%d from %d to %d", t, p, s, e))
			return
		}
		if e == s {
			return
		}
		st := r.state(t, p)
		if !st.consuming || st.next != s {
			if st.consuming {
				remove[t] = append(remove[t], p)
			}
			if reposition[t] == nil {
				reposition[t] = make(map[int32]int64)
			}
			reposition[t][p] = s
			st.consuming = true
			st.next, st.fetched = s, s
			releaseChunks(st.pending)
			st.pending, st.losses, st.gone, st.stopped = nil, nil, nil, false
		} else if st.stopped {
			if reposition[t] == nil {
				reposition[t] = make(map[int32]int64)
			}
			reposition[t][p] = st.fetched
			st.stopped, st.paused = false, false // add resumes it
		}
		skipGone(st, e)
		if st.paused && st.fetched < e {
			// Resumed only when the batch needs records not fetched yet:
			// a partition paused with many rows buffered reads them first.
			resume[t] = append(resume[t], p)
			st.paused = false
		}
		st.inBatch, st.end, st.done = true, e, false
		r.active = append(r.active, st)
		r.remaining++
	})
	if len(backwards) > 0 {
		if r.failOnDataLoss {
			return fmt.Errorf("the batch end is before its start for %s: some data may have been lost (the partition was truncated or the topic recreated); set the source option failOnDataLoss to false to go on", strings.Join(backwards, ", "))
		}
	}
	if len(remove) > 0 {
		// Removing drops whatever the fetcher buffered or has in flight for
		// the partition; adding it back starts a fresh fetch at the offset.
		r.f.remove(remove)
	}
	if len(reposition) > 0 {
		r.f.add(reposition)
	}
	if len(resume) > 0 {
		r.f.resume(resume)
	}
	return nil
}

// drainPending hands out the rows buffered for st before its batch end,
// and completes st once it has everything before the end.
func (r *reader) drainPending(st *partState, fn func(arrow.RecordBatch) error) error {
	for len(st.pending) > 0 {
		c := st.pending[0]
		if k := c.before(st.end); k > c.head {
			if err := r.chargeLosses(st, c.offs[k-1]+1); err != nil {
				return err
			}
			rec := c.rec.NewSlice(int64(c.head), int64(k))
			err := fn(rec)
			rec.Release()
			if err != nil {
				return err
			}
			st.next = c.offs[k-1] + 1
			c.head = k
		}
		if c.rows() > 0 || c.end > st.end {
			// The chunk reaches past the end: the batch has it all.
			break
		}
		st.next = max(st.next, c.end)
		c.release()
		st.pending[0] = nil
		st.pending = st.pending[1:]
	}
	if len(st.pending) == 0 {
		st.pending = nil
	}
	if len(st.pending) > 0 || st.next >= st.end {
		return r.complete(st)
	}
	return nil
}

// complete marks st as having every record of its batch.
func (r *reader) complete(st *partState) error {
	if st.done {
		return nil
	}
	if err := r.chargeLosses(st, st.end); err != nil {
		return err
	}
	st.next = st.end
	st.done = true
	r.remaining--
	return nil
}

// forget drops topic from the client and the reader, for a topic deleted
// and created again: its partitions are positioned afresh by the next read.
func (r *reader) forget(topic string) {
	r.stopAhead()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.cl.PurgeTopicsFromClient(topic)
	r.f.purge(topic)
	var parts []int32
	for p := range r.parts[topic] {
		parts = append(parts, p)
	}
	r.f.remove(map[string][]int32{topic: parts})
	delete(r.parts, topic)
}

// prune stops building the columns read marks false (see
// batchBuilder.prune).
func (r *reader) prune(read []bool) {
	r.stopAhead()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.f.prune(read)
}

// close drops every buffer.
func (r *reader) close() {
	r.stopAhead()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	for _, ps := range r.parts {
		for _, st := range ps {
			releaseChunks(st.pending)
			st.pending = nil
		}
	}
	r.parts = nil
	r.f.close()
}

// releaseChunks releases the chunks' records.
func releaseChunks(cs []*chunk) {
	for _, c := range cs {
		c.release()
	}
}
