package kafka

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// bufferedRows is how many rows the reader holds, read but not handed out.
func bufferedRows(src *Source) int {
	src.reader.mu.Lock()
	defer src.reader.mu.Unlock()
	n := 0
	for _, ps := range src.reader.parts {
		for _, st := range ps {
			for _, c := range st.pending {
				n += c.rows()
			}
		}
	}
	return n
}

// TestReadAheadDoesNotGrowWithSmallBatches reads a partition in batches
// much smaller than what one fetch brings, as a query with a small
// maxOffsetsPerTrigger does, with a fetch-ahead bound that the first
// fetch already fills. Fetching ahead used to poll once more after every
// batch even when its buffers were already over the bound, so each batch
// of 10 rows added a fetch of 50 or more: the rows held ahead grew with
// the stream (bench windows in batches of 25,000: 3.1 million rows, 418 MB,
// after 2.5 million events), up to the whole topic. Every batch must still
// read exactly its rows.
func TestReadAheadDoesNotGrowWithSmallBatches(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(1, "events"))
	var all []row
	for i := range 60 {
		all = append(all, produce(t, ctx, addr, "events", fmt.Sprint("s", i), map[int32]int{0: 50})...)
	}
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "2000"})
	src.reader.aheadMaxBytes = 1 // anything buffered fills it
	src.reader.pauseAfter = 1 << 20

	const step, batches = 10, 100
	var got []row
	most := 0
	for b := range batches {
		from, to := b*step, (b+1)*step
		rows, _ := readBatch(t, ctx, src, source.Offset(fmt.Sprintf(`{"events":{"0":%d}}`, from)), source.Offset(fmt.Sprintf(`{"events":{"0":%d}}`, to)))
		sameRows(t, fmt.Sprintf("batch %d", b), rows, all[from:to])
		got = append(got, rows...)
		// Let fetching ahead run while the query would process the
		// batch: until it stops by itself, or for a while (once it has
		// read the whole topic it waits for more).
		src.reader.mu.Lock()
		a := src.reader.ahead
		src.reader.mu.Unlock()
		if a != nil {
			select {
			case <-a.done:
			case <-time.After(200 * time.Millisecond):
			}
		}
		src.reader.stopAhead()
		most = max(most, bufferedRows(src))
	}
	sameRows(t, "all", got, all[:step*batches])
	// One fetch of 2000 bytes brings a producer batch of 50 rows or a few
	// of them; the rows held ahead must stay within a few fetches, not
	// grow by one every batch (which reads 10).
	t.Logf("at most %d rows held ahead", most)
	if most > 400 {
		t.Fatalf("up to %d rows were held ahead of batches of %d with a fetch-ahead bound already full: read-ahead grows with the stream", most, step)
	}
}

// TestFetchedRecordsAreDecodedOnce reads three partitions in batches that
// take 60 records of partition 0 and 300 of the others, with small fetches
// and a slow consumer, so that partition 0 keeps receiving records while
// the batch waits for the others, and the client has decoded its next
// fetch by the time the reader looks at what partition 0 holds. Past the
// fetch-ahead bound (here 100 rows) the reader used to pause partition 0,
// which makes the client drop what it fetched for it: the same records
// were fetched and decoded again once the next batch resumed it (bench
// windows, 10M events in batches of 200k, bound 64k rows: 12.2-12.8
// million records decoded). Pausing is now a last resort far above that
// bound, fetching ahead stops by not polling, and the fetcher keeps what
// it fetched for a paused partition: every record is decoded exactly once,
// and every batch reads exactly its rows.
func TestFetchedRecordsAreDecodedOnce(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	var all []row
	for i := range 40 {
		all = append(all, produce(t, ctx, addr, "events", fmt.Sprint("d", i), map[int32]int{0: 50, 1: 50, 2: 50})...)
	}
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "2000"})
	src.reader.aheadRows = 100

	var got []row
	from := [3]int64{}
	for from[0] < 2000 {
		to := [3]int64{min(2000, from[0]+60), min(2000, from[1]+300), min(2000, from[2]+300)}
		if to[1] == 2000 {
			to[0] = 2000 // the last batch reads to the end of every partition
		}
		start := source.Offset(fmt.Sprintf(`{"events":{"0":%d,"1":%d,"2":%d}}`, from[0], from[1], from[2]))
		end := source.Offset(fmt.Sprintf(`{"events":{"0":%d,"1":%d,"2":%d}}`, to[0], to[1], to[2]))
		err := src.GetBatch(ctx, start, end, func(rec arrow.RecordBatch) error {
			got = append(got, rowsOf(t, rec)...)
			time.Sleep(20 * time.Millisecond) // a slow consumer
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := src.Commit(ctx, end); err != nil {
			t.Fatal(err)
		}
		from = to
	}
	sameRows(t, "all", got, all)
	// Everything fetched was read: each record must have been decoded
	// once.
	if n := src.reader.f.decoded.Load(); n != int64(len(all)) {
		t.Fatalf("the fetcher decoded %d records to read a topic of %d: records were fetched and decoded again", n, len(all))
	}
}

// TestUnevenPartitionIsPausedRarely reads batches that take 60 records of
// partition 0 and 300 of the others, as batches take from a partition
// holding a smaller share of the topic: every poll brings partition 0
// more records than the batches use, so it must be paused past its bound.
// It used to be resumed by every batch that read it, and paused again a
// poll later, dropping what the client had fetched for it each time (bench
// windows, 10M events over partitions of 2.5, 3.9 and 3.6 million records:
// 23 pauses and 10.55 million records decoded; now 4 and 10.17 million;
// here 12-13 pauses in 14 batches, now 2). A paused partition is now
// resumed only once its buffered rows fall below the fetch-ahead bound or a
// batch needs records not fetched yet. Every batch still reads exactly its
// rows.
func TestUnevenPartitionIsPausedRarely(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	var all []row
	for i := range 80 {
		all = append(all, produce(t, ctx, addr, "events", fmt.Sprint("u", i), map[int32]int{0: 50, 1: 50, 2: 50})...)
	}
	src := mustNew(t, map[string]string{"kafka.bootstrap.servers": addr, "subscribe": "events", "kafka.max.partition.fetch.bytes": "2000"})
	src.reader.aheadRows = 100
	src.reader.pauseAfter = 400

	var got []row
	from := [3]int64{}
	batches := 0
	for from[1] < 4000 {
		to := [3]int64{from[0] + 60, min(4000, from[1]+300), min(4000, from[2]+300)}
		start := source.Offset(fmt.Sprintf(`{"events":{"0":%d,"1":%d,"2":%d}}`, from[0], from[1], from[2]))
		end := source.Offset(fmt.Sprintf(`{"events":{"0":%d,"1":%d,"2":%d}}`, to[0], to[1], to[2]))
		rows, _ := readBatch(t, ctx, src, start, end)
		got = append(got, rows...)
		if err := src.Commit(ctx, end); err != nil {
			t.Fatal(err)
		}
		from = to
		batches++
	}
	sameRows(t, "all", got, filterRows(all, func(r row) bool { return r.offset < from[r.partition] }))
	src.reader.stopAhead()
	src.reader.mu.Lock()
	pauses := src.reader.pauses
	src.reader.mu.Unlock()
	t.Logf("%d pauses in %d batches", pauses, batches)
	if pauses == 0 || 2*pauses > batches {
		t.Fatalf("partition 0 was paused %d times in %d batches, want at least once and at most every other batch", pauses, batches)
	}
}
