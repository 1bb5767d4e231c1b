package lakehouse

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/apache/iceberg-go"
)

// deleteFilesOf returns the delete files the current snapshot holds.
func deleteFilesOf(t *testing.T, tb *Table) int64 {
	t.Helper()
	h, err := tb.Health(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return h.DeleteFiles
}

// mergeLayouts are the merge-on-read layouts: v2 position deletes per
// partition (Atlas's default) and per file, v3 deletion vectors.
var mergeLayouts = []struct {
	name  string
	props map[string]string
}{
	{"v2-partition", map[string]string{"format-version": "2"}},
	{"v2-file", map[string]string{"format-version": "2", PropDeleteGranularity: DeleteGranularityFile}},
	{"v3-dv", map[string]string{"format-version": "3"}},
}

// TestCompactionFoldsDeletesCommittedDuringIt: MERGEs commit position
// deletes against the very files a compaction is rewriting, between its
// planning and its commit (a file that already had deletes, one that had
// none, and the file a MERGE added). The compaction still commits: it
// writes the touched bins again with the concurrent deletes applied, and
// removes the delete files. The table then holds exactly the replay of the
// changes, and no delete file. Before, the commit failed with ErrConflict
// and compaction lost to every MERGE that touched its files.
func TestCompactionFoldsDeletesCommittedDuringIt(t *testing.T) {
	for _, l := range mergeLayouts {
		t.Run(l.name, func(t *testing.T) {
			ctx := context.Background()
			tb := createTestTable(t, openTest(t, ""), CreateOptions{Properties: l.props})
			want := appendStream(t, tb, "load", 0, 6) // 6 files, ids 0..29
			if ok, err := deleteIDs(t, tb, Commit{QueryID: "cdc", BatchID: 0}, genRows(100, 2), 1, 2); !ok || err != nil {
				t.Fatalf("merge 0: %v %v", ok, err)
			}
			want = append(without(want, 1, 2), genRows(100, 2)...)
			r, err := tb.NewRewrite()
			if err != nil {
				t.Fatal(err)
			}
			files, err := r.PlanFiles(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			during := func() {
				steps := []struct {
					add []row
					ids []int64
				}{{genRows(200, 1), []int64{3}}, {nil, []int64{7, 8}}, {nil, []int64{100}}, {genRows(300, 2), []int64{29}}}
				for i, s := range steps {
					if ok, err := deleteIDs(t, tb, Commit{QueryID: "cdc", BatchID: int64(i + 1)}, s.add, s.ids...); !ok || err != nil {
						t.Fatalf("merge %d during the compaction: %v %v", i+1, ok, err)
					}
					want = append(without(want, s.ids...), s.add...)
				}
				if n := deleteFilesOf(t, tb); n == 0 {
					t.Fatal("no delete file before the compaction's commit")
				}
			}
			res, err := tb.binPack(ctx, r, files, DefaultCompactRows, during)
			if err != nil {
				t.Fatalf("compaction with MERGEs committed during it: %v", err)
			}
			if res.ConcurrentFolds == 0 || res.FilesRemoved != len(files) {
				t.Fatalf("compaction result %+v: want the %d files replaced and the concurrent deletes folded", res, len(files))
			}
			// Every MERGE committed before the compaction's commit began:
			// all of the folding happens before the commit lock, none while
			// the stream's commits would wait for it.
			if r.lockedFolds != 0 {
				t.Fatalf("%d of %d bins folded while holding the commit lock; want 0 (folded before it)", r.lockedFolds, r.folded)
			}
			recs := readAll(t, tb)
			assertRows(t, recs, want)
			releaseRecords(recs)
			if n := deleteFilesOf(t, tb); n != 0 {
				t.Fatalf("%d delete files after the compaction; want every one folded", n)
			}
			// The exactly-once marks survive: a replay of the last MERGE is skipped.
			if ok, err := deleteIDs(t, tb, Commit{QueryID: "cdc", BatchID: 4}, genRows(300, 2)); ok || err != nil {
				t.Fatalf("replay of merge 4: committed=%v err=%v, want skipped", ok, err)
			}
		})
	}
}

// TestCDCStreamWithRacingCompaction: a merge-on-read CDC stream (each
// batch updates 3 random live keys: their rows are deleted by position and
// re-inserted with the batch's values, plus 2 new keys) commits 20 batches
// while compactions run back to back. The CDC log is recorded as it is
// generated; the final table must equal its replay (every key once, with
// its last value), compactions must commit while the stream runs and fold
// deletes, and a last compaction leaves no delete file.
func TestCDCStreamWithRacingCompaction(t *testing.T) {
	for _, l := range mergeLayouts {
		t.Run(l.name, func(t *testing.T) {
			ctx := context.Background()
			tb := createTestTable(t, openTest(t, ""), CreateOptions{Properties: l.props})
			appendStream(t, tb, "load", 0, 4) // keys 0..19, amount = id
			type change struct {
				batch int64
				ids   []int64
				rows  []row
			}
			var log []change
			rng := rand.New(rand.NewPCG(1, 2))
			live := make([]int64, 0, 200)
			for id := range int64(20) {
				live = append(live, id)
			}
			next := int64(1000)
			var stop sync.WaitGroup
			done := make(chan struct{})
			var compactions, folded, withDeletes, conflicts int
			stop.Add(1)
			go func() { // the compaction, racing the stream
				defer stop.Done()
				for {
					select {
					case <-done:
						return
					default:
					}
					res, err := tb.Compact(ctx, 0)
					switch {
					case errors.Is(err, ErrConflict):
						conflicts++
					case err != nil:
						t.Errorf("compaction: %v", err)
						return
					case res.FilesRemoved > 0:
						compactions++
						folded += res.ConcurrentFolds
						withDeletes += res.FilesWithDeletes
					}
					time.Sleep(20 * time.Millisecond)
				}
			}()
			for b := int64(0); b < 20; b++ {
				ch := change{batch: b}
				for range 3 {
					id := live[rng.IntN(len(live))]
					if !slices.Contains(ch.ids, id) {
						ch.ids = append(ch.ids, id)
						ch.rows = append(ch.rows, changed(id, b))
					}
				}
				for range 2 {
					live = append(live, next)
					ch.rows = append(ch.rows, changed(next, b))
					next++
				}
				log = append(log, ch)
				mergeBatch(t, tb, Commit{QueryID: "cdc", BatchID: b}, ch.ids, ch.rows)
			}
			close(done)
			stop.Wait()
			// The reference: replay the CDC log over the initial rows.
			final := map[int64]row{}
			for _, r := range genRows(0, 20) {
				final[r.ID] = r
			}
			for _, ch := range log {
				for _, r := range ch.rows {
					final[r.ID] = r
				}
			}
			var want []row
			for _, r := range final {
				want = append(want, r)
			}
			recs := readAll(t, tb)
			assertRows(t, recs, want)
			releaseRecords(recs)
			// Deletes are folded either while the compaction reads (files
			// with deletes) or at its commit (bins folded): which one
			// depends on the machine's timing, one of them must happen.
			if compactions == 0 || withDeletes+folded == 0 {
				t.Fatalf("%d compactions committed (%d with deletes folded, %d bins folded at commit, %d lost) while the stream ran; want some", compactions, withDeletes, folded, conflicts)
			}
			before := deleteFilesOf(t, tb)
			if _, err := tb.Compact(ctx, 0); err != nil {
				t.Fatal(err)
			}
			if n := deleteFilesOf(t, tb); n != 0 {
				t.Fatalf("%d delete files after a last compaction (from %d)", n, before)
			}
			recs = readAll(t, tb)
			assertRows(t, recs, want)
			releaseRecords(recs)
			t.Logf("%d compactions committed during the stream (%d files with deletes, %d bins folded at commit), %d lost", compactions, withDeletes, folded, conflicts)
		})
	}
}

// changed is the row of key id as CDC batch b writes it.
func changed(id, b int64) row {
	r := genRows(id, 1)[0]
	r.User, r.UserNull, r.Amount = fmt.Sprintf("b%d", b), false, float64(b)
	return r
}

// mergeBatch commits one CDC batch as a merge-on-read MERGE: the rows of
// ids are deleted by position wherever they live, rows are added. A
// compaction that replaced a planned file makes it plan again.
func mergeBatch(t *testing.T, tb *Table, c Commit, ids []int64, rows []row) {
	t.Helper()
	ctx := context.Background()
	for attempt := 0; ; attempt++ {
		if err := tb.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		rd, err := tb.NewRowDelta()
		if err != nil {
			t.Fatal(err)
		}
		files, err := rd.PlanFiles(ctx, iceberg.IsIn(iceberg.Reference("id"), ids...))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if pos := livePositions(t, tb, f, ids); len(pos) > 0 {
				if err := rd.Delete(f, pos); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := rd.Add(ctx, buildBatch(t, testSchema, rows)); err != nil {
			t.Fatal(err)
		}
		ok, err := rd.Commit(ctx, c)
		if err == nil && ok {
			return
		}
		if !errors.Is(err, ErrConflict) || attempt > 20 {
			t.Fatalf("merge batch %d: committed=%v err=%v", c.BatchID, ok, err)
		}
	}
}

// livePositions returns the positions in f of the rows with ids that its
// deletes have not deleted.
func livePositions(t *testing.T, tb *Table, f DataFile, ids []int64) []int64 {
	t.Helper()
	ctx := context.Background()
	recs, err := tb.ReadFileRaw(ctx, f, []string{"id"})
	if err != nil {
		t.Fatal(err)
	}
	defer releaseRecords(recs)
	del, err := tb.DeletedPositions(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	var pos int64
	for _, r := range recs {
		col := r.Column(0)
		for i := 0; i < col.Len(); i++ {
			if id := col.(interface{ Value(int) int64 }).Value(i); slices.Contains(ids, id) && !del.Contains(pos) {
				out = append(out, pos)
			}
			pos++
		}
	}
	return out
}

// TestDanglingPartitionDeletesAreRemoved: a partition-scoped position
// delete file names rows of two data files. A rewrite of the first keeps it
// (it still deletes rows of the second); a rewrite of the second then
// removes it, although the first is already gone. Before, it stayed in the
// table for good, naming a file no snapshot holds, and every later reader
// and compaction paid for it.
func TestDanglingPartitionDeletesAreRemoved(t *testing.T) {
	ctx := context.Background()
	tb := createTestTable(t, openTest(t, ""), CreateOptions{Properties: map[string]string{"format-version": "2"}})
	want := appendStream(t, tb, "load", 0, 2) // two files: ids 0..4 and 5..9
	first, second := fileWithID(t, tb, 0), fileWithID(t, tb, 5)
	rd, err := tb.NewRowDelta()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		f  DataFile
		id int64
	}{{first, 1}, {second, 7}} {
		if err := rd.Delete(d.f, positionsOf(t, tb, d.f, d.id)); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := rd.Commit(ctx, Commit{QueryID: "cdc", BatchID: 0}); !ok || err != nil {
		t.Fatalf("delete ids 1 and 7: %v %v", ok, err)
	}
	want = without(want, 1, 7)
	if n := deleteFilesOf(t, tb); n != 1 {
		t.Fatalf("%d delete files; want 1, naming both data files", n)
	}
	for i, id := range []int64{0, 5} {
		f := fileWithID(t, tb, id)
		recs, err := tb.ReadFiles(ctx, []DataFile{f}) // deletes applied
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.RewriteFiles(ctx, []DataFile{f}, recs, Commit{}); err != nil {
			t.Fatalf("rewrite %d: %v", i, err)
		}
		releaseRecords(recs)
		wantDeletes := int64(1 - i) // kept after the first, gone after the second
		if n := deleteFilesOf(t, tb); n != wantDeletes {
			t.Fatalf("after rewrite %d: %d delete files, want %d", i, n, wantDeletes)
		}
	}
	recs := readAll(t, tb)
	assertRows(t, recs, want)
	releaseRecords(recs)
}
