package kafka

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// TestKeptBatchesHoldTheirRows reads a topic in several batches with small
// fetches: the Arrow records handed out, kept until every batch was read,
// still hold exactly the produced rows: nothing they hold points into
// memory the fetcher reuses (its decompression buffers, its fetch
// responses).
func TestKeptBatchesHoldTheirRows(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	all := produce(t, ctx, addr, "events", "r", map[int32]int{0: 2000, 1: 2000, 2: 2000})
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "4000"})

	steps := []source.Offset{
		`{"events":{"0":0,"1":0,"2":0}}`,
		`{"events":{"0":500,"1":700,"2":10}}`,
		`{"events":{"0":1500,"1":700,"2":1999}}`,
		`{"events":{"0":2000,"1":2000,"2":2000}}`,
	}
	var kept []arrow.RecordBatch
	defer func() {
		for _, rec := range kept {
			rec.Release()
		}
	}()
	for i := 1; i < len(steps); i++ {
		err := src.GetBatch(ctx, steps[i-1], steps[i], func(rec arrow.RecordBatch) error {
			rec.Retain()
			kept = append(kept, rec)
			return nil
		})
		if err != nil {
			t.Fatalf("GetBatch(%s, %s): %v", steps[i-1], steps[i], err)
		}
	}
	var got []row
	for _, rec := range kept {
		got = append(got, rowsOf(t, rec)...)
	}
	sameRows(t, "all batches", got, all)
}

// TestRecordsPastTheBatchEndKept reads the first 100 of 300 records that
// reach the source in one fetch: the 200 past the batch end are kept for
// the next batch as Arrow, which then reads exactly them.
func TestRecordsPastTheBatchEndKept(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(1, "events"))
	all := produce(t, ctx, addr, "events", "r", map[int32]int{0: 300})
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events"})

	first, _ := readBatch(t, ctx, src, `{"events":{"0":0}}`, `{"events":{"0":100}}`)
	sameRows(t, "first batch", first, all[:100])
	second, _ := readBatch(t, ctx, src, `{"events":{"0":100}}`, `{"events":{"0":300}}`)
	sameRows(t, "second batch", second, all[100:])
}

// TestFreeListBestFitAndBound checks that the pool hands out the smallest
// kept slice that is large enough, keeps at most its bound (dropping the
// smallest slices first), and never hands out a slice twice.
func TestFreeListBestFitAndBound(t *testing.T) {
	var f freeList[byte]
	for _, c := range []int{100, 10, 50, 30} {
		f.put(make([]byte, 7, c), 200)
	}
	if f.held != 190 {
		t.Fatalf("held %d, want 190", f.held)
	}
	s, ok := f.get(40)
	if !ok || cap(s) != 50 || len(s) != 0 {
		t.Fatalf("get(40) = len %d cap %d ok %v, want an empty slice of cap 50", len(s), cap(s), ok)
	}
	if _, ok := f.get(101); ok {
		t.Fatal("get(101) found a slice; none is that large")
	}
	// 10+30+100 held; adding 80 exceeds 200: the smallest (10, then 30)
	// go first.
	f.put(make([]byte, 0, 80), 200)
	var caps []int
	for _, s := range f.items {
		caps = append(caps, cap(s))
	}
	slices.Sort(caps)
	if !slices.Equal(caps, []int{80, 100}) {
		t.Fatalf("kept %v", caps)
	}
	if f.held > 200 {
		t.Fatalf("held %d over the bound", f.held)
	}
	f.put(make([]byte, 0, 300), 200) // over the bound on its own: dropped
	for _, s := range f.items {
		if cap(s) == 300 {
			t.Fatal("kept a slice larger than the bound")
		}
	}
}

// TestNewChunksRecyclesAsItCopies fetches 1,000 records with the source's
// client options and converts them with newChunks into chunks of at most
// 300 rows: newChunks must hand every record's decode memory back to the
// pool (each record as soon as it is copied), and the chunks, read after
// franz-go zeroed and pooled that memory, must still hold exactly the
// produced rows.
func TestNewChunksRecyclesAsItCopies(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(1, "events"))
	want := produce(t, ctx, addr, "events", "c", map[int32]int{0: 1000})
	cfg, err := parseOptions(map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events"})
	if err != nil {
		t.Fatal(err)
	}
	pool := &recordPool{}
	cl, err := kgo.NewClient(append(clientOptions(cfg, pool), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"events": {0: kgo.NewOffset().AtStart()}}))...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for len(recs) < len(want) {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("fetched %d of %d records: %v", len(recs), len(want), err)
		}
		recs = append(recs, fetches.Records()...)
	}
	b := newBatchBuilder(300, batchMaxBytes)
	defer b.release()
	chunks, err := newChunks(b, recs)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseChunks(chunks)
	if taken, returned := pool.taken.Load(), pool.returned.Load(); taken == 0 || returned != taken {
		t.Errorf("record slices: %d taken from the pool, %d returned, want all returned", taken, returned)
	}
	var got []row
	for _, c := range chunks {
		if n := c.rows(); n > 300 {
			t.Errorf("a chunk of %d rows, want at most 300", n)
		}
		got = append(got, rowsOf(t, c.rec)...)
	}
	sameRows(t, "chunks", got, want)
}
