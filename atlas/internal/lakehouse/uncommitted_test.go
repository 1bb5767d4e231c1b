package lakehouse

import (
	"context"
	"net/url"
	"path"
	"path/filepath"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// TestMergeAppendLeavesNoUncommittedManifest: with
// commit.manifest-merge.enabled and commit.manifest.min-count-to-merge=3,
// every third append merges its new files' manifest into a merged one. Each
// manifest file in the metadata folder must then be named by a snapshot
// (none is expired here): iceberg-go v0.7.0 leaves the merged-away manifest
// behind, one per merge, so that the metadata grew with the batch count
// whatever the expiry kept. The table still holds every row once, and a
// plain fast append (no merge) keeps its only manifest.
func TestMergeAppendLeavesNoUncommittedManifest(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb, err := lh.CreateTable(ctx, "gold.merged", testSchema, CreateOptions{Properties: map[string]string{
		table.ManifestMergeEnabledKey: "true", table.ManifestMinMergeCountKey: "3"}})
	if err != nil {
		t.Fatal(err)
	}
	want := appendStream(t, tb, "q", 0, 30)
	named := map[string]bool{}
	it := tb.Iceberg()
	fs, err := it.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range it.Metadata().Snapshots() {
		mans, err := s.Manifests(fs)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mans {
			named[path.Base(m.FilePath())] = true
		}
	}
	u, err := url.Parse(tb.Location())
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(u.Path, "metadata", "*-m*.avro"))
	if err != nil {
		t.Fatal(err)
	}
	var stray []string
	for _, f := range files {
		if !named[filepath.Base(f)] {
			stray = append(stray, filepath.Base(f))
		}
	}
	if len(stray) > 0 {
		t.Errorf("%d of %d manifest files are named by no snapshot (30 appends, merge every 3): %v", len(stray), len(files), stray)
	}
	if len(files) < 30 {
		t.Errorf("%d manifest files for 30 appends; each append's manifest is named by its snapshot", len(files))
	}
	recs := readAll(t, tb)
	assertRows(t, recs, want)
	releaseRecords(recs)
}
