package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOrphansCommand: `atlas orphans TABLE --older-than 1h --dry-run`
// prints exactly the data file a crashed writer left and deletes nothing;
// without --dry-run it deletes it and keeps the younger file; the table
// reads the same before and after; a second run finds nothing.
func TestOrphansCommand(t *testing.T) {
	home := t.TempDir()
	env := []string{"ATLAS_HOME=" + home, "ATLAS_CATALOG_URI=", "ATLAS_CATALOG_TYPE=", "ATLAS_WAREHOUSE=", "ATLAS_CATALOG_PROPS="}
	sql := func(q string) string {
		t.Helper()
		r := atlasCLI(t, env, "sql", "--home", home, q)
		if r.code != 0 {
			t.Fatalf("atlas sql %q: exit %d %s", q, r.code, r.stderr)
		}
		return r.stdout
	}
	sql("CREATE TABLE lakehouse.gold.o (id bigint, v string) USING iceberg")
	sql("INSERT INTO lakehouse.gold.o VALUES (1, 'a'), (2, 'b')")
	sql("INSERT INTO lakehouse.gold.o VALUES (3, 'c')")
	before := sql("SELECT id, v FROM lakehouse.gold.o ORDER BY id")

	dataDir := filepath.Join(home, "warehouse", "gold.db", "o", "data")
	files, _ := filepath.Glob(filepath.Join(dataDir, "*.parquet"))
	if len(files) != 2 {
		t.Fatalf("data files %v, want 2", files)
	}
	plant := func(name string) string {
		dst := filepath.Join(dataDir, name)
		in, err := os.Open(files[0])
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
		return dst
	}
	crashed := plant("00000-5-crashed-00001.parquet")
	old := time.Now().Add(-2 * time.Hour)
	filepath.WalkDir(filepath.Dir(dataDir), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return err
	})
	young := plant("00000-5-inflight-00001.parquet")

	orphans := func(args ...string) []string {
		t.Helper()
		r := atlasCLI(t, env, append([]string{"orphans", "--home", home, "lakehouse.gold.o", "--older-than", "1h"}, args...)...)
		if r.code != 0 {
			t.Fatalf("atlas orphans %v: exit %d %s", args, r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		return lines
	}
	want := "file://" + crashed
	if got := orphans("--dry-run"); len(got) != 2 || got[0] != want || !strings.Contains(got[1], "1 orphan files") || !strings.Contains(got[1], "dry run") {
		t.Fatalf("dry run printed %q, want %s and the count", got, want)
	}
	if _, err := os.Stat(crashed); err != nil {
		t.Fatal("the dry run deleted the orphan")
	}
	if got := orphans(); len(got) != 2 || got[0] != want || !strings.Contains(got[1], "deleted") {
		t.Fatalf("orphans printed %q, want %s deleted", got, want)
	}
	if _, err := os.Stat(crashed); !os.IsNotExist(err) {
		t.Fatalf("the orphan is still there (%v)", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Fatalf("the young file was deleted: %v", err)
	}
	if after := sql("SELECT id, v FROM lakehouse.gold.o ORDER BY id"); after != before {
		t.Fatalf("the table changed:\n%s\nwas\n%s", after, before)
	}
	if got := orphans(); len(got) != 1 || !strings.Contains(got[0], " 0 orphan files") {
		t.Fatalf("second run printed %q, want 0 orphan files", got)
	}
}
