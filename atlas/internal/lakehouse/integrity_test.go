package lakehouse

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damage overwrites n bytes of path at offset off with a pattern no sqlite
// page holds.
func damage(t *testing.T, path string, off int64, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := []byte(strings.Repeat("\xde\xad\xbe\xef", n/4+1))[:n]
	if _, err := f.WriteAt(junk, off); err != nil {
		t.Fatal(err)
	}
}

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// localPath turns a file:// location into a path.
func localPath(loc string) string { return strings.TrimPrefix(loc, "file://") }

// TestCheckIntegrityFindsDamagedPages: a copy of a real catalog (three
// tables) with pages overwritten in the middle of the file fails
// CheckIntegrity with ErrCatalogDamaged, the file's path and what to do,
// while the sound original passes; opening the damaged copy does not fail
// by itself, which is why the check is needed.
func TestCheckIntegrityFindsDamagedPages(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lh := openTest(t, dir)
	for _, n := range []string{"gold.a", "gold.b", "silver.c"} {
		if _, err := lh.CreateTable(ctx, "lakehouse."+n, testSchema, CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := lh.Close(); err != nil { // checkpoints the WAL into the file
		t.Fatal(err)
	}
	good := lh.Config()
	if err := good.CheckIntegrity(ctx); err != nil {
		t.Fatalf("sound catalog: %v", err)
	}

	bad := good
	copyDir := t.TempDir()
	copyPath := filepath.Join(copyDir, "catalog.db")
	copyFile(t, filepath.Join(dir, "catalog.db"), copyPath)
	bad.URI = SQLiteURI(copyPath)
	st, err := os.Stat(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	damage(t, copyPath, st.Size()/2, 4096)

	err = bad.CheckIntegrity(ctx)
	if !errors.Is(err, ErrCatalogDamaged) {
		t.Fatalf("damaged catalog: %v, want ErrCatalogDamaged", err)
	}
	for _, want := range []string{copyPath, "atlas reset", "backup"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if lh2, err := Open(ctx, bad); err == nil {
		lh2.Close()
	} else {
		t.Logf("open of the damaged copy failed by itself: %v", err)
	}
	// Not a sqlite catalog, or not created yet: nothing to check.
	if err := (Config{Type: "rest", URI: "http://127.0.0.1:1"}).CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
	if err := (Config{Type: "sql", URI: SQLiteURI(filepath.Join(copyDir, "none.db"))}).CheckIntegrity(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestReadErrorsNameTheDamagedDataFile: a truncated Parquet data file
// makes a scan and a ReadFiles (the read of a MERGE or a compaction) fail
// with an error naming that file, not only "magic bytes not found".
func TestReadErrorsNameTheDamagedDataFile(t *testing.T) {
	ctx := context.Background()
	tb := createTestTable(t, openTest(t, ""), CreateOptions{})
	for b := int64(0); b < 3; b++ {
		if _, err := tb.AppendBatch(ctx, batchesOf(t, genRows(100*b, 20), 100), Commit{QueryID: "q", BatchID: b}); err != nil {
			t.Fatal(err)
		}
	}
	files, err := tb.PlanFiles(ctx, nil)
	if err != nil || len(files) != 3 {
		t.Fatalf("planned %d files (%v), want 3", len(files), err)
	}
	victim := localPath(files[1].Path)
	st, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(victim, st.Size()/2); err != nil {
		t.Fatal(err)
	}
	_, err = tb.ReadAll(ctx)
	if err == nil || !strings.Contains(err.Error(), victim) {
		t.Fatalf("scan with a truncated file: %v, want an error naming %s", err, victim)
	}
	_, err = tb.ReadFiles(ctx, files)
	if err == nil || !strings.Contains(err.Error(), victim) {
		t.Fatalf("ReadFiles with a truncated file: %v, want an error naming %s", err, victim)
	}
	// The sound files still read, and the error names only the victim.
	recs, err := tb.ReadFiles(ctx, []DataFile{files[0], files[2]})
	if err != nil {
		t.Fatal(err)
	}
	releaseRecords(recs)
}

// TestLoadErrorNamesTheBrokenMetadataFile: a metadata.json cut in the
// middle makes LoadTable and Refresh fail with an error naming it.
func TestLoadErrorNamesTheBrokenMetadataFile(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb := createTestTable(t, lh, CreateOptions{})
	if _, err := tb.AppendBatch(ctx, batchesOf(t, genRows(0, 10), 100), Commit{QueryID: "q", BatchID: 0}); err != nil {
		t.Fatal(err)
	}
	meta := localPath(tb.Iceberg().MetadataLocation())
	js, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(meta, js[:len(js)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = lh.LoadTable(ctx, "gold.events")
	if err == nil || !strings.Contains(err.Error(), meta) {
		t.Fatalf("load with a broken metadata.json: %v, want an error naming %s", err, meta)
	}
	if err := tb.Refresh(ctx); err == nil || !strings.Contains(err.Error(), meta) {
		t.Fatalf("refresh with a broken metadata.json: %v, want an error naming %s", err, meta)
	}
	if _, err := lh.LoadTable(ctx, "gold.nope"); !errors.Is(err, ErrNoSuchTable) {
		t.Fatalf("missing table: %v, want ErrNoSuchTable", err)
	}
}
