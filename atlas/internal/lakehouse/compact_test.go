package lakehouse

import (
	"context"
	"testing"
)

// TestCompactBinPacksSmallFilesKeepingRowsAndHistory appends 12 small
// batches as a stream would, compacts with a target of 100 rows, and
// checks: the table holds exactly the appended rows, the small files were
// packed into ceil(240/100) files, and a replay of an already committed
// batch is still skipped (the exactly-once history survives compaction).
func TestCompactBinPacksSmallFilesKeepingRowsAndHistory(t *testing.T) {
	ctx := context.Background()
	tb := createTestTable(t, openTest(t, ""), CreateOptions{})
	var want []row
	for b := int64(0); b < 12; b++ {
		rows := genRows(b*20, 20)
		want = append(want, rows...)
		if ok, err := tb.AppendBatch(ctx, batchesOf(t, rows, 100), Commit{QueryID: "q", BatchID: b}); !ok || err != nil {
			t.Fatalf("append batch %d: %v %v", b, ok, err)
		}
	}
	before, err := tb.PlanFiles(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) != 12 {
		t.Fatalf("%d files before compaction, want one per append (12)", len(before))
	}
	res, err := tb.Compact(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	after, err := tb.PlanFiles(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Bins of 5 files (100 rows) twice, then the last 2 files (40 rows).
	if res.FilesRemoved != 12 || res.Rows != 240 || len(after) != 3 {
		t.Fatalf("compaction %+v left %d files; want 12 removed, 240 rows, 3 files", res, len(after))
	}
	all, err := tb.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, all, want)
	releaseRecords(all)

	// Batch 11 of query q committed before the compaction: a replay skips it.
	if ok, err := tb.AppendBatch(ctx, batchesOf(t, genRows(11*20, 20), 100), Commit{QueryID: "q", BatchID: 11}); ok || err != nil {
		t.Fatalf("replay of batch 11 after compaction: committed=%v err=%v, want skipped", ok, err)
	}
	if last, ok, err := tb.LastCommittedBatch(ctx, "q"); err != nil || !ok || last != 11 {
		t.Fatalf("last committed batch after compaction = %d %v %v, want 11", last, ok, err)
	}

	// Nothing small enough left in pairs: a second compaction does nothing.
	res, err = tb.Compact(ctx, 100)
	if err != nil || res.FilesRemoved != 0 {
		t.Fatalf("second compaction: %+v %v, want nothing to do", res, err)
	}
}
