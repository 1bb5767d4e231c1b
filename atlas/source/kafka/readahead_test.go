package kafka

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/atlas-lakehouse/atlas/atlas/source"
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
