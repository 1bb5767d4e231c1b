package lakehouse

import (
	"context"
	"testing"
)

// TestExpireSnapshotsKeepsExactlyOnce: two queries write a table, the
// second long after the first; expiring all but the newest snapshot keeps
// the rows, and a replay of either query's last batch is still skipped
// (the writers map of the surviving snapshot remembers both), while their
// next batches commit.
func TestExpireSnapshotsKeepsExactlyOnce(t *testing.T) {
	ctx := context.Background()
	tb := createTestTable(t, openTest(t, ""), CreateOptions{})
	var want []row
	appendAs := func(query string, batch, start int64) bool {
		t.Helper()
		rows := genRows(start, 5)
		ok, err := tb.AppendBatch(ctx, batchesOf(t, rows, 100), Commit{QueryID: query, BatchID: batch})
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			want = append(want, rows...)
		}
		return ok
	}
	for b := int64(0); b < 3; b++ {
		appendAs("early", b, 100*b)
	}
	for b := int64(0); b < 6; b++ {
		appendAs("late", b, 1000+100*b)
	}
	removed, err := tb.ExpireSnapshots(ctx, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if removed != 8 || len(tb.Snapshots()) != 1 {
		t.Fatalf("expired %d snapshots, %d left; want 8 expired, 1 left", removed, len(tb.Snapshots()))
	}
	all, err := tb.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, all, want)
	releaseRecords(all)

	// The "early" query's snapshots are all gone; its last batch is known.
	if appendAs("early", 2, 200) || appendAs("late", 5, 1500) {
		t.Fatal("a replayed batch committed again after expiry")
	}
	if last, ok, err := tb.LastCommittedBatch(ctx, "early"); err != nil || !ok || last != 2 {
		t.Fatalf("early's last batch after expiry = %d %v %v, want 2", last, ok, err)
	}
	if !appendAs("early", 3, 300) || !appendAs("late", 6, 1600) {
		t.Fatal("the next batches did not commit")
	}
	all, err = tb.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, all, want)
	releaseRecords(all)
}
