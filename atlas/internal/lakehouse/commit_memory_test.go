package lakehouse

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC() // the second cycle frees what sync.Pool victims held
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// newestMetadataSize returns the size of the newest metadata file under
// dir: the table's whole state as Iceberg stores it.
func newestMetadataSize(t *testing.T, dir string) int64 {
	t.Helper()
	var newest string
	var size int64
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".metadata.json") && filepath.Base(p) > filepath.Base(newest) {
			newest, size = p, fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return size
}

// TestCommitsDoNotRetainPastMetadata appends many small batches, as a
// streaming query does, and checks that the memory the table holds does not
// grow with the number of commits beyond its metadata: iceberg-go's
// committed table keeps every earlier metadata version reachable, which
// made a long stream's memory quadratic in its batches (31 MB more after
// 104 further commits of 10 rows, against a metadata file of 132 KB).
func TestCommitsDoNotRetainPastMetadata(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := createTestTable(t, openTest(t, dir), CreateOptions{})
	recs := batchesOf(t, genRows(0, 10), 10)
	commit := func(from, to int64) {
		for id := from; id < to; id++ {
			if ok, err := tb.AppendBatch(ctx, recs, Commit{QueryID: "q", BatchID: id}); !ok || err != nil {
				t.Fatalf("batch %d: committed %v, %v", id, ok, err)
			}
		}
	}
	commit(0, 21)
	before := liveHeap()
	commit(21, 125)
	after := liveHeap()
	md := newestMetadataSize(t, dir)
	// Holding the metadata versions of up to reloadEvery commits (parsed,
	// about four times the file's size each) is expected; holding one
	// version per commit since the start is the leak.
	limit := uint64(2<<20 + 4*(reloadEvery+1)*md)
	growth := int64(after) - int64(before)
	t.Logf("live heap after 21 commits %d KB, after 125 commits %d KB (growth %d KB, limit %d KB); metadata file %d KB",
		before>>10, after>>10, growth>>10, limit>>10, md>>10)
	if growth > int64(limit) {
		t.Fatalf("104 commits grew the live heap by %d KB (limit %d KB, metadata file %d KB): the table keeps past metadata versions", growth>>10, limit>>10, md>>10)
	}
	// The cached table is the committed state.
	if got := tb.cur.Load().Metadata().CurrentSnapshot(); got == nil || got.Summary.Properties[PropBatchID] != "124" {
		t.Fatalf("current snapshot after 125 commits: %+v, want batch 124", got)
	}
	if n := len(tb.cur.Load().Metadata().Snapshots()); n != 125 {
		t.Fatalf("%d snapshots, want 125", n)
	}
}
