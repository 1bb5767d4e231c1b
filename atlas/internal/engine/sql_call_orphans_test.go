package engine_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSQLRemoveOrphanFiles: CALL lakehouse.system.remove_orphan_files
// finds exactly the data file a crashed writer left (planted, two hours
// old), lists it as orphan_file_location on a dry run without deleting
// it, deletes it for real, keeps a file younger than older_than and every
// row, and finds nothing on a second call.
func TestSQLRemoveOrphanFiles(t *testing.T) {
	ctx := context.Background()
	s := sqlSession(t)
	mustSQL(t, s, "CREATE TABLE lakehouse.gold.o (id bigint, v string) USING iceberg")
	var want []string
	for i := 0; i < 3; i++ {
		mustSQL(t, s, fmt.Sprintf("INSERT INTO lakehouse.gold.o VALUES (%d, 'v%d')", i, i))
		want = append(want, fmt.Sprintf("%d v%d", i, i))
	}
	rowsNow := func() []string {
		var out []string
		for _, r := range rowsOf(t, mustSQL(t, s, "SELECT id, v FROM lakehouse.gold.o ORDER BY id")) {
			out = append(out, fmt.Sprint(r["id"], " ", r["v"]))
		}
		return out
	}
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := lh.LoadTable(ctx, "lakehouse.gold.o")
	if err != nil {
		t.Fatal(err)
	}
	loc := strings.TrimPrefix(tbl.Location(), "file://")
	dataFiles, _ := filepath.Glob(filepath.Join(loc, "data", "*.parquet"))
	if len(dataFiles) != 3 {
		t.Fatalf("%d data files, want 3", len(dataFiles))
	}
	cp := func(dst string) {
		in, err := os.Open(dataFiles[0])
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
		out.Close()
	}
	crashed := filepath.Join(loc, "data", "00000-7-crashed-00001.parquet")
	cp(crashed)
	old := time.Now().Add(-2 * time.Hour)
	filepath.WalkDir(loc, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
		}
		return err
	})
	young := filepath.Join(loc, "data", "00000-7-inflight-00001.parquet")
	cp(young)
	bound := time.Now().UTC().Add(-time.Hour).Format("2006-01-02 15:04:05")
	call := func(dry bool) []string {
		q := fmt.Sprintf("CALL lakehouse.system.remove_orphan_files(table => 'gold.o', older_than => TIMESTAMP '%s', dry_run => %v)", bound, dry)
		var out []string
		for _, r := range rowsOf(t, mustSQL(t, s, q)) {
			out = append(out, fmt.Sprint(r["orphan_file_location"]))
		}
		return out
	}
	wantOrphans := []string{"file://" + crashed}
	if got := call(true); !slices.Equal(got, wantOrphans) {
		t.Fatalf("dry run: %v, want %v", got, wantOrphans)
	}
	if _, err := os.Stat(crashed); err != nil {
		t.Fatal("the dry run deleted the orphan")
	}
	if got := call(false); !slices.Equal(got, wantOrphans) {
		t.Fatalf("remove: %v, want %v", got, wantOrphans)
	}
	if _, err := os.Stat(crashed); !os.IsNotExist(err) {
		t.Fatalf("the orphan is still there (%v)", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Fatalf("the young file was deleted: %v", err)
	}
	if got := rowsNow(); !slices.Equal(got, want) {
		t.Fatalf("rows after remove_orphan_files: %v, want %v", got, want)
	}
	if got := call(false); len(got) != 0 {
		t.Fatalf("second call: %v, want nothing", got)
	}
	for q, wantErr := range map[string]string{
		"CALL lakehouse.system.remove_orphan_files(table => 'gold.o', dry_run => 'yes')":                              "dry_run must be true or false",
		"CALL lakehouse.system.remove_orphan_files(table => 'gold.o', location => '/tmp')":                            "location is not supported",
		"CALL lakehouse.system.remove_orphan_files(table => 'gold.o', older_than => 1)":                               "must be a timestamp",
		"CALL lakehouse.system.remove_orphan_files(table => 'gold.o', older_than => TIMESTAMP '2999-01-01 00:00:00')": "in the future",
	} {
		if _, err := s.SQL(q); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: err = %v, want %q", q, err, wantErr)
		}
	}
}
