package lakehouse

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"
)

// metadataFiles lists the metadata.json files of tb's metadata folder.
func metadataFiles(t testing.TB, tb *Table) []string {
	t.Helper()
	u, err := url.Parse(tb.Location())
	if err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(u.Path, "metadata", "*.metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// dirBytes sums the sizes of the files under dir.
func dirBytes(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// appendStream commits batches from..to-1 of query q, 5 rows each, and
// returns the rows.
func appendStream(t testing.TB, tb *Table, q string, from, to int64) []row {
	t.Helper()
	var out []row
	for b := from; b < to; b++ {
		rows := genRows(b*5, 5)
		ok, err := tb.AppendBatch(context.Background(), batchesOf(t, rows, 100), Commit{QueryID: q, BatchID: b})
		if err != nil || !ok {
			t.Fatalf("append batch %d: committed=%v err=%v", b, ok, err)
		}
		out = append(out, rows...)
	}
	return out
}

// TestMetadataFilesBoundedByDeleteAfterCommit: a table Atlas creates
// deletes the metadata.json files that fall off its metadata log
// (write.metadata.delete-after-commit.enabled, here with
// write.metadata.previous-versions-max=5: the current file and 5 previous
// ones stay); a table created with the deletion off keeps every file, and
// turning it on later bounds it from the next commit, as Iceberg defines.
func TestMetadataFilesBoundedByDeleteAfterCommit(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	a, err := lh.CreateTable(ctx, "gold.a", testSchema, CreateOptions{Properties: map[string]string{table.MetadataPreviousVersionsMaxKey: "5"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := lh.CreateTable(ctx, "gold.b", testSchema, CreateOptions{Properties: map[string]string{
		table.MetadataPreviousVersionsMaxKey: "5", table.MetadataDeleteAfterCommitEnabledKey: "false"}})
	if err != nil {
		t.Fatal(err)
	}
	appendStream(t, a, "q", 0, 20)
	appendStream(t, b, "q", 0, 20)
	if n := len(metadataFiles(t, a)); n != 6 {
		t.Fatalf("table created with Atlas's defaults holds %d metadata files after 20 commits, want 6 (current + previous-versions-max)", n)
	}
	if n := len(metadataFiles(t, b)); n != 21 {
		t.Fatalf("table with delete-after-commit off holds %d metadata files after 20 commits, want 21 (all kept)", n)
	}
	if err := b.SetProperties(ctx, map[string]string{table.MetadataDeleteAfterCommitEnabledKey: "true"}); err != nil {
		t.Fatal(err)
	}
	appendStream(t, b, "q", 20, 21)
	// Iceberg deletes the files that the commit drops from the log (its
	// previous log had 5 entries, so one); the older ones fell off the log
	// before deletion was on and are orphans, as in Iceberg.
	if n := len(metadataFiles(t, b)); n != 21 {
		t.Fatalf("after turning deletion on, %d metadata files; want 21 (one dropped, two added)", n)
	}
}

// TestExpiryKeepsTheExactlyOnceMarks: after a manifest rewrite the current
// snapshot (operation replace) carries no exactly-once marks; expiring
// everything but one snapshot must still keep the stream's last snapshot,
// so that its replayed batch is skipped, not committed twice.
func TestExpiryKeepsTheExactlyOnceMarks(t *testing.T) {
	ctx := context.Background()
	tb := createTestTable(t, openTest(t, ""), CreateOptions{})
	want := appendStream(t, tb, "q", 0, 6)
	replaced, written, err := tb.rewriteManifests(ctx, 2, nil)
	if err != nil || replaced != 6 || written != 1 {
		t.Fatalf("rewrite manifests: %d -> %d, %v; want 6 -> 1", replaced, written, err)
	}
	cur, _ := tb.CurrentSnapshot()
	if cur.Operation != "replace" || cur.QueryID() != "" {
		t.Fatalf("current snapshot after the rewrite: %s by %q", cur.Operation, cur.QueryID())
	}
	if _, err := tb.ExpireSnapshots(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	if n := len(tb.Snapshots()); n != 2 {
		t.Fatalf("%d snapshots after expiring all but one; want 2 (the rewrite and the stream's last)", n)
	}
	// The batch replayed after a crash is recognised, the next one commits.
	if ok, err := tb.AppendBatch(ctx, batchesOf(t, genRows(5*5, 5), 100), Commit{QueryID: "q", BatchID: 5}); ok || err != nil {
		t.Fatalf("replay of batch 5 after expiry: committed=%v err=%v, want skipped", ok, err)
	}
	want = append(want, appendStream(t, tb, "q", 6, 7)...)
	recs := readAll(t, tb)
	assertRows(t, recs, want)
	releaseRecords(recs)
}

// waitMaintenance waits until the automatic maintenance of lh has been
// idle for a while.
func waitMaintenance(t testing.TB, lh *Lakehouse) {
	t.Helper()
	m := lh.auto.Load()
	quiet := 0
	for deadline := time.Now().Add(30 * time.Second); quiet < 20; {
		if time.Now().After(deadline) {
			t.Fatal("maintenance did not settle in 30 s")
		}
		if m.idle() {
			quiet++
		} else {
			quiet = 0
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAutomaticMaintenanceBoundsAMergeOnReadStream: 40 micro-batches of a
// merge-on-read CDC stream (each deletes a row of an earlier batch and adds
// 5) with automatic maintenance: the snapshots, data manifests, data files
// and delete files stay bounded by the table's properties, the rows are
// exactly those of a replay of the changes, a replay of the last batch is
// skipped, and the maintenance shows in the stats and PropLastMaintenance.
func TestAutomaticMaintenanceBoundsAMergeOnReadStream(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	lh.StartMaintenance(MaintenanceOptions{CheckEvery: 5})
	tb := createTestTable(t, lh, CreateOptions{Properties: map[string]string{
		PropMaxSnapshots:               "6",
		table.ManifestMinMergeCountKey: "5",
		PropCompactEveryCommits:        "10",
		PropOrphansOlderThanMs:         "600000",
	}})
	var want []row
	for b := int64(0); b < 40; b++ {
		add := genRows(1000+b*5, 5)
		var del []int64
		if b > 0 {
			del = []int64{1000 + (b-1)*5} // the first row of the previous batch
		}
		if err := tb.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		for attempt := 0; ; attempt++ {
			ok, err := deleteIDs(t, tb, Commit{QueryID: "cdc", BatchID: b}, add, del...)
			if err == nil && ok {
				break
			}
			if attempt > 5 {
				t.Fatalf("batch %d: committed=%v err=%v", b, ok, err)
			}
			if err := tb.Refresh(ctx); err != nil { // compaction replaced the file: plan again
				t.Fatal(err)
			}
		}
		want = append(without(want, del...), add...)
	}
	waitMaintenance(t, lh)
	if err := tb.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(tb.Snapshots()); n > 6+1+5 {
		t.Fatalf("%d snapshots after 40 batches, want at most 6 + a fifth + one check interval", n)
	}
	cur := tb.Iceberg()
	if n, err := dataManifests(ctx, cur); err != nil || n > 5+5 {
		t.Fatalf("%d data manifests (%v), want at most min-count-to-merge + one check interval", n, err)
	}
	files := mustPlan(t, tb)
	deletes := 0
	for _, f := range files {
		deletes += f.DeleteFiles()
	}
	if len(files) > 20 || deletes > 15 {
		t.Fatalf("%d data files, %d delete files after 40 batches; want both bounded by the compaction every 10 commits", len(files), deletes)
	}
	recs := readAll(t, tb)
	assertRows(t, recs, want)
	releaseRecords(recs)
	if ok, err := deleteIDs(t, tb, Commit{QueryID: "cdc", BatchID: 39}, genRows(1000+39*5, 5)); ok || err != nil {
		t.Fatalf("replay of batch 39: committed=%v err=%v, want skipped", ok, err)
	}
	st, ok := tb.MaintenanceStats()
	if !ok || st.SnapshotsExpired == 0 || st.FilesCompacted == 0 || st.Errors != 0 {
		t.Fatalf("maintenance stats %+v", st)
	}
	if _, what, ok := tb.LastMaintenance(); !ok || !strings.Contains(what, "expired=") {
		t.Fatalf("last maintenance record %q %v", what, ok)
	}
	t.Logf("stats: %+v; %d files, %d deletes, %d snapshots", st, len(files), deletes, len(tb.Snapshots()))
}
