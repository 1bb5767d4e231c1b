package lakehouse

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"
)

// filesUnder lists every file under dir (a local path), sorted.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// referencedFiles reads, with iceberg-go directly, every file the table's
// current metadata references: the metadata.json files of its log, each
// snapshot's manifest list, the manifests it names and their live data
// and delete files. Local paths, sorted.
func referencedFiles(t *testing.T, tb *Table) map[string]bool {
	t.Helper()
	ctx := context.Background()
	ice, err := tb.lh.Catalog().LoadTable(ctx, tb.Identifier())
	if err != nil {
		t.Fatal(err)
	}
	fs, err := ice.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref := map[string]bool{localPath(ice.MetadataLocation()): true}
	for e := range ice.Metadata().PreviousFiles() {
		ref[localPath(e.MetadataFile)] = true
	}
	for _, s := range ice.Metadata().Snapshots() {
		ref[localPath(s.ManifestList)] = true
		mans, err := s.Manifests(fs)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mans {
			ref[localPath(m.FilePath())] = true
			entries, err := m.FetchEntries(fs, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				ref[localPath(e.DataFile().FilePath())] = true
			}
		}
	}
	return ref
}

// TestRemoveOrphanFilesAfterCrashes: the files a crash leaves (the data
// file of a commit that never happened; the files of snapshots an expire
// removed from the metadata before it was killed) are found exactly —
// every file on disk minus every file the metadata references, read
// independently — while a file younger than the bound stays, the table's
// rows are unchanged, a dry run deletes nothing, and a second run finds
// nothing.
func TestRemoveOrphanFilesAfterCrashes(t *testing.T) {
	ctx := context.Background()
	tb := createTestTable(t, openTest(t, ""), CreateOptions{})
	var want []row
	for b := int64(0); b < 4; b++ {
		rows := genRows(100*b, 10)
		want = append(want, rows...)
		if _, err := tb.AppendBatch(ctx, batchesOf(t, rows, 100), Commit{QueryID: "q", BatchID: b}); err != nil {
			t.Fatal(err)
		}
	}
	small, err := tb.PlanFiles(ctx, nil)
	if err != nil || len(small) != 4 {
		t.Fatalf("planned %d files (%v), want 4", len(small), err)
	}
	if res, err := tb.Compact(ctx, 0); err != nil || res.FilesRemoved != 4 {
		t.Fatalf("compact: %+v %v", res, err)
	}
	// An expire that committed and was killed before deleting anything.
	tx := tb.Iceberg().NewTransaction()
	if err := tx.ExpireSnapshots(table.WithOlderThan(0), table.WithRetainLast(1), table.WithPostCommit(false)); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// A commit that never happened: its data file was written, then the
	// writer died.
	loc := localPath(tb.Location())
	aborted := filepath.Join(loc, "data", "00000-9-aborted-00001.parquet")
	copyFile(t, localPath(small[0].Path), aborted)
	if err := tb.Refresh(ctx); err != nil {
		t.Fatal(err)
	}

	// Everything so far is two hours old; then a writer's fresh file.
	old := time.Now().Add(-2 * time.Hour)
	for _, f := range filesUnder(t, loc) {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	young := filepath.Join(loc, "data", "00000-9-inflight-00001.parquet")
	copyFile(t, localPath(small[1].Path), young)

	// The reference: files on disk, older than the bound, minus the
	// referenced ones.
	ref := referencedFiles(t, tb)
	var orphans []string
	for _, f := range filesUnder(t, loc) {
		if !ref[f] && f != young {
			orphans = append(orphans, f)
		}
	}
	for _, f := range append([]string{aborted}, localPath(small[0].Path), localPath(small[3].Path)) {
		if !slices.Contains(orphans, f) {
			t.Fatalf("the reference misses the known orphan %s: %v", f, orphans)
		}
	}
	bound := time.Now().Add(-time.Hour)
	locations := func(res OrphanFilesResult) []string {
		out := make([]string, len(res.Locations))
		for i, l := range res.Locations {
			out[i] = localPath(l)
		}
		slices.Sort(out)
		return out
	}

	dry, err := tb.RemoveOrphanFiles(ctx, bound, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := locations(dry); !slices.Equal(got, orphans) {
		t.Fatalf("dry run found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(orphans, "\n"))
	}
	for _, f := range orphans {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("the dry run deleted %s", f)
		}
	}

	t.Logf("%d orphans (%d bytes), e.g. %s", len(dry.Locations), dry.Bytes, dry.Locations[0])
	res, err := tb.RemoveOrphanFiles(ctx, bound, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := locations(res); !slices.Equal(got, orphans) {
		t.Fatalf("removed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(orphans, "\n"))
	}
	var wantLeft []string
	for f := range ref {
		if _, err := os.Stat(f); err == nil {
			wantLeft = append(wantLeft, f)
		}
	}
	wantLeft = append(wantLeft, young)
	slices.Sort(wantLeft)
	if left := filesUnder(t, loc); !slices.Equal(left, wantLeft) {
		t.Fatalf("left on disk\n%s\nwant the referenced files and the young one\n%s", strings.Join(left, "\n"), strings.Join(wantLeft, "\n"))
	}
	all, err := tb.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, all, want)
	releaseRecords(all)

	again, err := tb.RemoveOrphanFiles(ctx, bound, false)
	if err != nil || len(again.Locations) != 0 {
		t.Fatalf("second run: %v %v, want nothing", again.Locations, err)
	}
	if _, err := tb.RemoveOrphanFiles(ctx, time.Now().Add(time.Hour), true); err == nil {
		t.Fatal("a bound in the future was accepted")
	}
}
