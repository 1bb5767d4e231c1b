package exec

import (
	"runtime"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/guard"
)

// DefaultChunkRows is how many rows of a source record one worker runs the
// operators over at a time when a micro-batch's operators run in parallel
// (Config.ChunkRows). Big enough that a chunk's fixed costs (builders,
// one record) vanish, small enough that a 64k-row Kafka record still
// spreads over several cores.
const DefaultChunkRows = 16 << 10

// parallelSafe reports whether ops may run on several goroutines at once,
// each over its own rows: projections, filters, explode and the watermark
// (whose statistics each chunk records on its own, see withStats). Bound
// expressions are safe for concurrent use (expr.Bound). Deduplication and
// stream-static joins keep state across rows and run on one goroutine.
func parallelSafe(ops []op) bool {
	for _, o := range ops {
		switch o.(type) {
		case *projectOp, *filterOp, *watermarkOp, *generateOp:
		default:
			return false
		}
	}
	return true
}

// withStats returns ops with every watermark operator replaced by a copy
// that records its event-time statistics into stats.
func withStats(ops []op, stats *EventTimeStats) []op {
	out := make([]op, len(ops))
	for i, o := range ops {
		if w, ok := o.(*watermarkOp); ok {
			cp := *w
			cp.stats = stats
			o = &cp
		}
		out[i] = o
	}
	return out
}

// workerCount is the number of goroutines a micro-batch's operators run
// on: Config.Parallelism, or one per core the Go scheduler uses.
func workerCount(parallelism int) int {
	if parallelism > 0 {
		return parallelism
	}
	return runtime.GOMAXPROCS(0)
}

// chunk is one slice of a source record, as the workers hand it back: the
// operators' output with what they counted on the way.
type chunk struct {
	rows    int64             // input rows
	out     arrow.RecordBatch // the operators' output (owned by the chunk)
	stats   EventTimeStats    // the watermark operators' statistics over these rows
	metrics map[string]int64  // counters the expressions added (nil if none)
	err     error             // the operators' error
	done    chan struct{}     // closed once out, stats, metrics and err are set
	rec     arrow.RecordBatch // the input, released by the worker
}

// parallelRun runs stateless operators over a micro-batch's records on
// several goroutines and hands their results to consume one by one, in
// the order read yields the rows, so that what consume does (the
// aggregation's state, the late rows, the sink's records) is exactly what
// one goroutine would do. Records longer than chunkRows are cut into
// slices of chunkRows (zero-copy); 0 keeps records whole.
type parallelRun struct {
	workers   int
	chunkRows int64
	ops       []op
	// base is the statistics each chunk starts from (the batch's limit on
	// event times ahead of processing time).
	base EventTimeStats
	// busy measures the wall time during which an operator or consume ran.
	busy busyClock
}

// run reads, runs the operators and consumes. consume's first error, or a
// worker's (the first in row order), stops the read and is returned;
// later chunks are released unconsumed. Every record is released.
func (p *parallelRun) run(c *expr.Ctx, read func(yield func(arrow.RecordBatch) error) error, consume func(ch *chunk) error) error {
	jobs := make(chan *chunk, p.workers)
	// order holds the chunks in row order, waiting for their workers: it
	// bounds the chunks in flight (and so memory) to its capacity plus the
	// workers'.
	order := make(chan *chunk, 2*p.workers)
	failed := make(chan struct{})
	var wg sync.WaitGroup
	for range p.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.work(c, jobs, failed)
		}()
	}
	consumed := make(chan struct{})
	var consumeErr error
	go func() {
		defer close(consumed)
		for ch := range order {
			<-ch.done
			if consumeErr == nil {
				if consumeErr = ch.err; consumeErr == nil {
					p.busy.start()
					consumeErr = consumeGuarded(consume, ch)
					p.busy.stop()
				}
				if consumeErr != nil {
					close(failed)
				}
			}
			if ch.out != nil {
				ch.out.Release()
			}
		}
	}()
	send := func(rec arrow.RecordBatch) error {
		ch := &chunk{rows: rec.NumRows(), rec: rec, done: make(chan struct{})}
		select {
		case jobs <- ch:
		case <-failed:
			rec.Release()
			return errConsumerFailed
		}
		// Always queued once a worker has it: consume's goroutine drains
		// order to the end, so this never blocks for good, and every
		// output is released there.
		order <- ch
		return nil
	}
	readErr := read(func(rec arrow.RecordBatch) error {
		select {
		case <-failed:
			return errConsumerFailed
		default:
		}
		n := rec.NumRows()
		if p.chunkRows <= 0 || n <= p.chunkRows {
			rec.Retain()
			return send(rec)
		}
		for lo := int64(0); lo < n; lo += p.chunkRows {
			if err := send(rec.NewSlice(lo, min(n, lo+p.chunkRows))); err != nil {
				return err
			}
		}
		return nil
	})
	close(jobs)
	close(order)
	<-consumed
	wg.Wait()
	if consumeErr != nil {
		return consumeErr
	}
	return readErr
}

// work runs the operators over the chunks of jobs until it is closed. Each
// worker has its own copy of the watermark operators and its own counters,
// handed over with each chunk.
func (p *parallelRun) work(c *expr.Ctx, jobs <-chan *chunk, failed <-chan struct{}) {
	var st EventTimeStats
	ops := withStats(p.ops, &st)
	wc := *c
	wc.Metrics = map[string]int64{}
	for ch := range jobs {
		select {
		case <-failed:
			// The batch failed: the chunk is never consumed.
		default:
			p.busy.start()
			st = p.base
			ch.out, ch.err = runOpsGuarded(&wc, ops, ch.rec)
			p.busy.stop()
			ch.stats = st
			if len(wc.Metrics) > 0 {
				ch.metrics = wc.Metrics
				wc.Metrics = map[string]int64{}
			}
		}
		ch.rec.Release()
		ch.rec = nil
		close(ch.done)
	}
}

// busyClock adds up the wall time during which at least one of several
// goroutines is busy.
type busyClock struct {
	mu    sync.Mutex
	n     int
	since time.Time
	total time.Duration
}

func (b *busyClock) start() {
	b.mu.Lock()
	if b.n == 0 {
		b.since = time.Now()
	}
	b.n++
	b.mu.Unlock()
}

func (b *busyClock) stop() {
	b.mu.Lock()
	if b.n--; b.n == 0 {
		b.total += time.Since(b.since)
	}
	b.mu.Unlock()
}

// parallelRun returns how this query runs the operators over its source's
// rows on several goroutines, or nil when they run on one: one core,
// Parallelism 1, several sources, an operator among them that keeps state
// across rows (parallelSafe), or a deduplication in the query.
func (q *Query) parallelRun() *parallelRun {
	w := workerCount(q.cfg.Parallelism)
	t := q.tree
	if w < 2 || len(t.leaves) != 1 || !parallelSafe(t.leaves[0].chain.ops) {
		return nil
	}
	for _, n := range t.stateful {
		if _, ok := n.op.(*dedupOp); ok {
			return nil
		}
	}
	rows := int64(q.cfg.ChunkRows)
	switch {
	case len(t.aggs) == 0:
		rows = 0 // each record reaches the sink as it was read
	case rows <= 0:
		rows = DefaultChunkRows
	}
	return &parallelRun{workers: w, chunkRows: rows, ops: t.leaves[0].chain.ops}
}

// runOpsGuarded is runOps on a worker goroutine, where a panic would end
// the process: it fails the chunk with a *guard.PanicError instead.
func runOpsGuarded(c *expr.Ctx, ops []op, rec arrow.RecordBatch) (out arrow.RecordBatch, err error) {
	defer guard.Recover("an operator on a worker goroutine", &err)
	return runOps(c, ops, rec)
}

// consumeGuarded is consume on the consuming goroutine, panics failing
// the run with a *guard.PanicError.
func consumeGuarded(consume func(ch *chunk) error, ch *chunk) (err error) {
	defer guard.Recover("the consumer of a parallel run", &err)
	return consume(ch)
}
