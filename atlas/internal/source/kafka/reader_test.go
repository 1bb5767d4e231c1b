package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// TestWholeRangeDeleted deletes every record of a batch's range: no record
// will ever arrive for it, so the reader must notice from the broker's log
// start that the range is gone rather than wait.
func TestWholeRangeDeleted(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	produce(t, ctx, addr, "events", "x", map[int32]int{0: 60, 1: 60, 2: 60})

	strict := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "startingOffsets": "earliest"})
	lenient := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "startingOffsets": "earliest", "failOnDataLoss": "false"})
	strict.reader.stallTimeout = 200 * time.Millisecond
	lenient.reader.stallTimeout = 200 * time.Millisecond

	admCl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	var cut kadm.Offsets
	for p := int32(0); p < 3; p++ {
		cut.AddOffset("events", p, 60, -1)
	}
	if resp, err := kadm.NewClient(admCl).DeleteRecords(ctx, cut); err != nil || resp.Error() != nil {
		t.Fatalf("DeleteRecords: %v %v", err, resp.Error())
	}

	start, end := source.Offset(`{"events":{"0":0,"1":0,"2":0}}`), source.Offset(`{"events":{"0":60,"1":60,"2":60}}`)
	if err := strict.GetBatch(ctx, start, end, func(arrow.RecordBatch) error { return nil }); err == nil {
		t.Fatal("GetBatch over a deleted range succeeded with failOnDataLoss=true")
	}
	rows, _ := readBatch(t, ctx, lenient, start, end)
	if len(rows) != 0 || lenient.DataLossOffsets() != 180 {
		t.Fatalf("read %d rows and counted %d lost offsets, want 0 and 180", len(rows), lenient.DataLossOffsets())
	}

	// Records produced after the deletion are read normally afterwards.
	more := produce(t, ctx, addr, "events", "y", map[int32]int{0: 5, 1: 5, 2: 5})
	rows, _ = readBatch(t, ctx, lenient, end, `{"events":{"0":65,"1":65,"2":65}}`)
	sameRows(t, "after the deleted range", rows, more)
}

// TestBufferedPartitionsPauseAndResume reads batches that leave some
// partitions out, so their fetched records pile up in the reader: past the
// pause threshold the reader pauses them, and later batches resume them and
// still read exactly the produced records.
func TestBufferedPartitionsPauseAndResume(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	all := produce(t, ctx, addr, "events", "p", map[int32]int{0: 3000, 1: 3000, 2: 3000})

	// Small fetches, so that records keep arriving for every partition
	// while a batch reads only some of them.
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "2000"})
	src.reader.pauseAfter = 100
	src.reader.aheadRows = 50 // fetching ahead resumes a partition below it

	steps := []source.Offset{
		`{"events":{"0":0,"1":0,"2":0}}`,
		`{"events":{"0":10,"1":10,"2":10}}`,
		`{"events":{"0":3000,"1":10,"2":10}}`, // only partition 0: 1 and 2 buffer and pause
		`{"events":{"0":3000,"1":2000,"2":10}}`,
		`{"events":{"0":3000,"1":3000,"2":3000}}`,
	}
	var got []row
	paused := false
	for i := 1; i < len(steps); i++ {
		rows, _ := readBatch(t, ctx, src, steps[i-1], steps[i])
		from, until := mustOffsets(t, steps[i-1]), mustOffsets(t, steps[i])
		sameRows(t, string(steps[i]), rows, filterRows(all, func(r row) bool {
			return r.offset >= from[r.topic][r.partition] && r.offset < until[r.topic][r.partition]
		}))
		got = append(got, rows...)
		for _, st := range src.reader.parts["events"] {
			paused = paused || st.paused
		}
	}
	if !paused {
		t.Error("no partition was ever paused with a 100-record threshold")
	}
	sameRows(t, "all", got, all)
}

// TestNewPartitionsShareTheRateLimit checks that partitions discovered after
// the start are weighed by their lag from the log start.
func TestNewPartitionsShareTheRateLimit(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(2, "late"))
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "late", "maxOffsetsPerTrigger": "20"})
	produce(t, ctx, addr, "late", "1", map[int32]int{0: 25, 1: 15})
	// Lags 25 and 15 of 40: 20*25/40 = 12.5 -> 12, 20*15/40 = 7.5 -> 7.
	if end := waitLatest(t, ctx, src, "{}"); SparkOffset(end) != `{"late":{"0":12,"1":7}}` {
		t.Fatalf("LatestOffset = %s", end)
	}
}

// TestFetchesAheadBetweenBatches reads the first 100 of 3000 records,
// produced in small batches and read with small fetches, so that one poll
// cannot bring them all: between that
// batch and the next, the reader keeps fetching (as it would while the
// query commits), and the next batch reads the other 2900 exactly.
func TestFetchesAheadBetweenBatches(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(1, "events"))
	// Sixty producer batches of 50: a fetch brings one or a few.
	var all []row
	for i := range 60 {
		all = append(all, produce(t, ctx, addr, "events", fmt.Sprint("a", i), map[int32]int{0: 50})...)
	}
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "2000"})

	first, _ := readBatch(t, ctx, src, `{"events":{"0":0}}`, `{"events":{"0":100}}`)
	sameRows(t, "first batch", first, all[:100])
	fetched := func() int64 {
		src.reader.mu.Lock()
		defer src.reader.mu.Unlock()
		return src.reader.parts["events"][0].fetched
	}
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for fetched() < 3000 {
		select {
		case <-wait.Done():
			t.Fatalf("between batches the reader fetched up to offset %d of 3000: it does not fetch ahead", fetched())
		case <-time.After(10 * time.Millisecond):
		}
	}
	second, _ := readBatch(t, ctx, src, `{"events":{"0":100}}`, `{"events":{"0":3000}}`)
	sameRows(t, "second batch", second, all[100:])
}

// TestFetchAheadStopsAtItsBound reads the first 100 of 3000 records with a
// fetch-ahead bound of one byte: the reader stops fetching ahead after the
// first poll that buffers anything, instead of reading the whole topic
// ahead, and the next batch still reads the other 2900 exactly.
func TestFetchAheadStopsAtItsBound(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(1, "events"))
	var all []row
	for i := range 60 {
		all = append(all, produce(t, ctx, addr, "events", fmt.Sprint("b", i), map[int32]int{0: 50})...)
	}
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "2000"})
	src.reader.aheadMaxBytes = 1

	first, _ := readBatch(t, ctx, src, `{"events":{"0":0}}`, `{"events":{"0":100}}`)
	sameRows(t, "first batch", first, all[:100])
	src.reader.mu.Lock()
	a := src.reader.ahead
	src.reader.mu.Unlock()
	if a == nil {
		t.Fatal("no fetching ahead after the first batch")
	}
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
		t.Fatal("fetching ahead went on past its bound")
	}
	src.reader.mu.Lock()
	fetched := src.reader.parts["events"][0].fetched
	src.reader.mu.Unlock()
	if fetched >= 3000 {
		t.Errorf("fetched up to %d ahead with a 1-byte bound", fetched)
	}
	second, _ := readBatch(t, ctx, src, `{"events":{"0":100}}`, `{"events":{"0":3000}}`)
	sameRows(t, "second batch", second, all[100:])
}

// TestCommitDoesNotWaitForFetchingAhead commits a batch while the reader's
// lock is held, as fetching ahead holds it to convert a fetch: Commit
// returns without waiting, and the next batch reads exactly its records.
func TestCommitDoesNotWaitForFetchingAhead(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(1, "events"))
	all := produce(t, ctx, addr, "events", "c", map[int32]int{0: 300})
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events"})

	first, _ := readBatch(t, ctx, src, `{"events":{"0":0}}`, `{"events":{"0":100}}`)
	sameRows(t, "first batch", first, all[:100])
	src.reader.mu.Lock()
	done := make(chan error, 1)
	go func() { done <- src.Commit(ctx, `{"events":{"0":100}}`) }()
	select {
	case err := <-done:
		src.reader.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		src.reader.mu.Unlock()
		t.Fatal("Commit waited for the reader's lock")
	}
	second, _ := readBatch(t, ctx, src, `{"events":{"0":100}}`, `{"events":{"0":300}}`)
	sameRows(t, "second batch", second, all[100:])
}
