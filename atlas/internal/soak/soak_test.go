package soak

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// ciProps are maintenance thresholds scaled to a CI-sized run, so that
// every bound is reached several times within it.
var ciProps = map[string]string{
	table.MetadataPreviousVersionsMaxKey: "10",
	lakehouse.PropMaxSnapshots:           "20",
	table.ManifestMinMergeCountKey:       "10",
	lakehouse.PropCompactEveryCommits:    "50",
}

// soakBatches is the run length: ATLAS_SOAK_BATCHES, else n.
func soakBatches(n int) int {
	if v, err := strconv.Atoi(os.Getenv("ATLAS_SOAK_BATCHES")); err == nil && v >= 10 {
		return v
	}
	return n
}

func runSoak(t *testing.T, variant string, batches int) Report {
	t.Helper()
	dir := t.TempDir()
	s := engine.Builder().AppName("soak-test").Config(engine.ConfHome, dir).GetOrCreate()
	t.Cleanup(s.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, s, Options{Variant: variant, Batches: batches, RowsPerBatch: 5, Keys: 100, Dir: dir, TableProperties: ciProps})
	for _, d := range rep.Deciles {
		t.Logf("decile %2d: p50 %s p99 %s metadata %d B, checkpoint %d B, %+v, RSS %d MB, maintenance runs %d",
			d.Index, d.P50, d.P99, d.MetadataBytes, d.CheckpointBytes, d.Health, d.RSS>>20, d.Maintenance.Runs)
		t.Logf("  maintenance %+v", d.Maintenance)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s in %s: %s", variant, rep.Elapsed.Round(time.Millisecond), rep.Checked)
	return rep
}

// metadataSlack is how much more table metadata the last decile may leave
// than the third: the swing of a metadata folder at its bounds (snapshots
// between 20 and 34 of ~1 KB in each of 11 metadata.json files, manifests
// between a merge and the next).
const metadataSlack = 64 << 10

// assertBounded checks that the last decile left no more than the third
// (the run's steady state: the retention of 100 checkpoint batches and
// every maintenance threshold reached) allows, and the absolute bounds of
// ciProps.
func assertBounded(t *testing.T, rep Report) {
	t.Helper()
	if len(rep.Deciles) != 10 {
		t.Fatalf("%d deciles, want 10", len(rep.Deciles))
	}
	steady, last := rep.Deciles[2], rep.Deciles[9]
	// Every part of the metadata folder is bounded: metadata.json files by
	// the metadata log, each of them and the manifest lists by the snapshot
	// bound, manifests by the merge threshold and by deleting the ones a
	// merge append wrote and did not commit. What is left varies with where
	// in its expiry and merge cycles the decile ends, by much less than
	// metadataSlack; growth of 400 B a batch (one manifest leaked per merge)
	// exceeds it within 170 batches.
	if last.MetadataBytes > steady.MetadataBytes+metadataSlack {
		t.Errorf("table metadata grew from %d B (decile 3) to %d B (decile 10), by %d B over %d batches; want at most %d B more",
			steady.MetadataBytes, last.MetadataBytes, last.MetadataBytes-steady.MetadataBytes, last.LastBatch-steady.LastBatch, metadataSlack)
	}
	if last.CheckpointBytes > steady.CheckpointBytes*3/2+64<<10 {
		t.Errorf("checkpoint grew from %d B (decile 3) to %d B (decile 10)", steady.CheckpointBytes, last.CheckpointBytes)
	}
	h := last.Health
	// 20 snapshots + a fifth before expiry + one check interval (10 commits).
	if h.Snapshots > 20+4+10 || h.MetadataLog > 10 {
		t.Errorf("%d snapshots, %d metadata log entries at the end; want <= 34 and <= 10", h.Snapshots, h.MetadataLog)
	}
	if h.DataManifests+h.DeleteManifests > 10+10 {
		t.Errorf("%d data + %d delete manifests at the end; want <= min-count-to-merge + one check interval", h.DataManifests, h.DeleteManifests)
	}
}

// TestSoakAppendStaysBounded is the CI-sized long run: 1,500 micro-batches
// (ATLAS_SOAK_BATCHES sets another count; each is a real Iceberg commit, so
// 3,000 take minutes on a loaded 2-core machine) appended to an Iceberg
// table with the server's automatic maintenance;
// table metadata, manifests, snapshots and the checkpoint stay bounded, and
// the table holds every generated value exactly once.
func TestSoakAppendStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("long run")
	}
	rep := runSoak(t, Append, soakBatches(3000)/2)
	assertBounded(t, rep)
	if h := rep.Deciles[9].Health; h.DataFiles > 60 {
		t.Errorf("%d data files at the end; compaction should keep them bounded", h.DataFiles)
	}
}

// TestSoakWindowsStaysBounded: the windows variant commits a snapshot
// only when a window closes (every 10 batches; the other batches write no
// row and commit nothing), so it runs longer for as many commits; every
// window is checked, the metadata and the checkpoint stay bounded.
func TestSoakWindowsStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("long run")
	}
	rep := runSoak(t, Windows, soakBatches(3000))
	assertBounded(t, rep)
}

// TestSoakCDCStaysCorrect: the merge-on-read CDC variant (foreachBatch +
// MERGE INTO) holds exactly the last value of every key, its snapshots and
// metadata stay bounded, and compaction keeps its delete files bounded.
func TestSoakCDCStaysCorrect(t *testing.T) {
	if testing.Short() {
		t.Skip("long run")
	}
	rep := runSoak(t, CDC, soakBatches(3000)/10)
	h := rep.Deciles[9].Health
	if h.Snapshots > 34 || h.MetadataLog > 10 {
		t.Errorf("%d snapshots, %d metadata log entries at the end; want <= 34 and <= 10", h.Snapshots, h.MetadataLog)
	}
	// Every MERGE adds a delete file naming rows of the files a compaction
	// is rewriting; the compaction folds them at commit instead of losing,
	// so delete files stay below one compaction interval (50 commits) and
	// a check interval (10). Before, compaction starved and they grew with
	// every batch.
	for _, d := range rep.Deciles {
		if d.Health.DeleteFiles > 50+10 {
			t.Errorf("decile %d: %d delete files; want at most 60", d.Index, d.Health.DeleteFiles)
		}
	}
	if m := rep.Deciles[9].Maintenance; m.FilesWithDeletesFolded == 0 || m.Errors != 0 {
		t.Errorf("maintenance %+v: want deletes folded and no failed run", m)
	}
}
