package exec

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// slowOp passes records through after a random pause of up to 2 ms, so
// that chunks finish out of order; it counts how many run at once and
// fails on the chunk holding failOn (when not negative).
type slowOp struct {
	mu      sync.Mutex
	rng     *rand.Rand
	running atomic.Int32
	most    atomic.Int32
	failOn  int64
}

func (s *slowOp) apply(_ *expr.Ctx, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := s.running.Add(1)
	defer s.running.Add(-1)
	for {
		m := s.most.Load()
		if n <= m || s.most.CompareAndSwap(m, n) {
			break
		}
	}
	s.mu.Lock()
	pause := time.Duration(s.rng.IntN(2000)) * time.Microsecond
	s.mu.Unlock()
	time.Sleep(pause)
	for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
		if v == s.failOn {
			return nil, fmt.Errorf("row %d: injected failure", v)
		}
	}
	rec.Retain()
	return rec, nil
}

// numbered returns records of one int64 column holding 0, 1, 2, ... in
// order, of the given sizes.
func numbered(mem memory.Allocator, sizes []int) []arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.RecordBatch
	next := int64(0)
	for _, size := range sizes {
		b := array.NewInt64Builder(mem)
		for range size {
			b.Append(next)
			next++
		}
		col := b.NewArray()
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{col}, int64(size)))
		col.Release()
		b.Release()
	}
	return recs
}

// readAll yields recs in order, as a source does (releasing each after
// the yield), and counts what it yielded.
func readAll(recs []arrow.RecordBatch, yielded *int) func(yield func(arrow.RecordBatch) error) error {
	return func(yield func(arrow.RecordBatch) error) error {
		for _, r := range recs {
			*yielded++
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	}
}

var parallelShapes = []struct {
	name      string
	sizes     []int
	chunkRows int64
}{
	{"one record, one chunk", []int{50}, 0},
	{"one record, many chunks", []int{1000}, 7},
	{"many records with empty ones", []int{0, 3, 0, 0, 40, 1, 0, 17, 200, 0}, 5},
	{"records of exactly one chunk", []int{5, 5, 5, 10}, 5},
	{"only empty records", []int{0, 0, 0}, 4},
}

// TestParallelRunKeepsRowOrder: whatever the record and chunk shapes, the
// consumer sees every row once, in the order read, while the operators run
// on several goroutines at once; every buffer is released.
func TestParallelRunKeepsRowOrder(t *testing.T) {
	for _, sh := range parallelShapes {
		t.Run(sh.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			recs := numbered(mem, sh.sizes)
			slow := &slowOp{rng: rand.New(rand.NewPCG(1, uint64(len(sh.sizes)))), failOn: -1}
			p := &parallelRun{workers: 4, chunkRows: sh.chunkRows, ops: []op{slow}}
			var got []int64
			var rows int64
			var yielded, chunks int
			err := p.run(expr.NewCtx(context.Background()), readAll(recs, &yielded), func(ch *chunk) error {
				chunks++
				rows += ch.rows
				got = append(got, ch.out.Column(0).(*array.Int64).Int64Values()...)
				return nil
			})
			for _, r := range recs {
				r.Release()
			}
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			wantChunks := 0
			for _, s := range sh.sizes {
				total += s
				if sh.chunkRows > 0 && s > int(sh.chunkRows) {
					wantChunks += (s + int(sh.chunkRows) - 1) / int(sh.chunkRows)
				} else {
					wantChunks++
				}
			}
			if len(got) != total || rows != int64(total) {
				t.Fatalf("consumed %d rows (chunks say %d), read %d", len(got), rows, total)
			}
			for i, v := range got {
				if v != int64(i) {
					t.Fatalf("row %d of the consumed rows is %d: out of order", i, v)
				}
			}
			if chunks != wantChunks {
				t.Errorf("%d chunks consumed, want %d", chunks, wantChunks)
			}
			if wantChunks >= 8 && slow.most.Load() < 2 {
				t.Errorf("at most %d operator calls ran at once over %d chunks, want several", slow.most.Load(), chunks)
			}
		})
	}
}

// TestParallelRunStopsAtFirstError: an operator's error on row 333 (or the
// consumer's, on the chunk holding it) is returned; the consumer saw
// exactly the rows before that chunk, in order; reading stopped early;
// everything is released.
func TestParallelRunStopsAtFirstError(t *testing.T) {
	const failAt = 333
	for _, inConsume := range []bool{false, true} {
		t.Run(fmt.Sprintf("in consume %v", inConsume), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			sizes := make([]int, 200)
			for i := range sizes {
				sizes[i] = 20
			}
			recs := numbered(mem, sizes)
			slow := &slowOp{rng: rand.New(rand.NewPCG(2, 3)), failOn: -1}
			if !inConsume {
				slow.failOn = failAt
			}
			p := &parallelRun{workers: 3, chunkRows: 10, ops: []op{slow}}
			var got []int64
			var yielded int
			errConsume := errors.New("consumer failed")
			err := p.run(expr.NewCtx(context.Background()), readAll(recs, &yielded), func(ch *chunk) error {
				vals := ch.out.Column(0).(*array.Int64).Int64Values()
				if inConsume && vals[0] <= failAt && failAt <= vals[len(vals)-1] {
					return errConsume
				}
				got = append(got, vals...)
				return nil
			})
			for _, r := range recs {
				r.Release()
			}
			switch {
			case inConsume && !errors.Is(err, errConsume):
				t.Fatalf("error %v, want the consumer's", err)
			case !inConsume && (err == nil || err.Error() != "row 333: injected failure"):
				t.Fatalf("error %v, want the operator's on row 333", err)
			}
			if len(got) != 330 {
				t.Fatalf("consumed %d rows before the failing chunk (rows 330-339), want 330", len(got))
			}
			for i, v := range got {
				if v != int64(i) {
					t.Fatalf("row %d of the consumed rows is %d", i, v)
				}
			}
			if yielded == len(recs) {
				t.Errorf("the read went on to the end (%d records) after the failure", yielded)
			}
		})
	}
}

// TestParallelRunChoice: the operators run on several goroutines only
// when more than one is asked for (or available) and every operator can.
func TestParallelRunChoice(t *testing.T) {
	proj := &projectOp{}
	for _, tc := range []struct {
		name        string
		parallelism int
		ops         []op
		agg, dedup  bool
		sources     int
		want        bool
		chunkRows   int64
	}{
		{"one goroutine", 1, []op{proj}, true, false, 1, false, 0},
		{"aggregation", 2, []op{proj, &watermarkOp{}}, true, false, 1, true, DefaultChunkRows},
		{"no aggregation: records whole", 3, []op{proj, &filterOp{}}, false, false, 1, true, 0},
		{"deduplication", 2, []op{proj}, true, true, 1, false, 0},
		{"stream-static join", 2, []op{&streamStaticOp{}}, false, false, 1, false, 0},
		{"two sources", 2, []op{proj}, false, false, 2, false, 0},
	} {
		tree := &opTree{}
		for range tc.sources {
			tree.leaves = append(tree.leaves, &opNode{id: -1, chain: &chainOp{ops: tc.ops}})
		}
		if tc.agg {
			tree.aggs = []*aggregateOp{{}}
		}
		if tc.dedup {
			tree.stateful = []*opNode{{op: &dedupOp{}}}
		}
		q := &Query{cfg: Config{Parallelism: tc.parallelism}, tree: tree}
		p := q.parallelRun()
		if (p != nil) != tc.want {
			t.Errorf("%s: parallel %v, want %v", tc.name, p != nil, tc.want)
			continue
		}
		if p != nil && (p.workers != tc.parallelism || p.chunkRows != tc.chunkRows) {
			t.Errorf("%s: %d workers, chunks of %d rows; want %d, %d", tc.name, p.workers, p.chunkRows, tc.parallelism, tc.chunkRows)
		}
	}
}
