package sinklog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSparkLayout: batch files are "v1" plus one JSON line per file with
// Spark's SinkFileStatus fields in Spark's order; batch 9 is written as
// 9.compact listing every file of batches 0..9; AllFiles reads from the
// latest compaction on; a replayed batch is not written again.
func TestSparkLayout(t *testing.T) {
	out := t.TempDir()
	l := Open(out)
	var want []string
	for id := int64(0); id < 12; id++ {
		p := filepath.Join(out, fmt.Sprintf("part-00000-%d-c000.json", id))
		if err := os.WriteFile(p, []byte(strings.Repeat("x", int(id)+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		e, err := FileEntry(p)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, "file://"+filepath.ToSlash(p))
		if ok, err := l.Add(id, []Entry{e}); err != nil || !ok {
			t.Fatalf("batch %d: %v %v", id, ok, err)
		}
	}
	if ok, err := l.Add(11, nil); ok || err != nil {
		t.Fatalf("a replayed batch 11 was written again (%v, %v)", ok, err)
	}
	raw, err := os.ReadFile(filepath.Join(out, Dir, "0"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	wantLine := fmt.Sprintf(`{"path":"%s","size":1,"isDir":false,"modificationTime":`, want[0])
	if len(lines) != 2 || lines[0] != "v1" || !strings.HasPrefix(lines[1], wantLine) || !strings.HasSuffix(lines[1], `,"blockReplication":1,"blockSize":33554432,"action":"add"}`) {
		t.Fatalf("batch 0 log:\n%s\nwant v1 and a line starting %s", raw, wantLine)
	}
	if _, err := os.Stat(filepath.Join(out, Dir, "9")); !os.IsNotExist(err) {
		t.Fatalf("batch 9 written as 9, want only 9.compact (%v)", err)
	}
	compact, err := l.Batch(9)
	if err != nil {
		t.Fatal(err)
	}
	if len(compact) != 10 {
		t.Fatalf("9.compact lists %d files, want 10", len(compact))
	}
	// AllFiles must not need batches before the compaction.
	if err := os.Remove(filepath.Join(out, Dir, "3")); err != nil {
		t.Fatal(err)
	}
	all, err := l.AllFiles()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range all {
		got = append(got, e.Path)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("AllFiles:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadsSparkWrittenLog parses a log as Spark writes it (Hadoop's
// file:/ paths, a delete entry) and lists what Spark would.
func TestReadsSparkWrittenLog(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join(out, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b0 := "v1\n" +
		`{"path":"file:/data/out/part-00000-a.c000.snappy.parquet","size":10,"isDir":false,"modificationTime":1,"blockReplication":1,"blockSize":33554432,"action":"add"}` + "\n" +
		`{"path":"file:/data/out/part-00001-a.c000.snappy.parquet","size":11,"isDir":false,"modificationTime":1,"blockReplication":1,"blockSize":33554432,"action":"add"}`
	b1 := "v1\n" + `{"path":"file:/data/out/part-00001-a.c000.snappy.parquet","size":11,"isDir":false,"modificationTime":1,"blockReplication":1,"blockSize":33554432,"action":"delete"}`
	os.WriteFile(filepath.Join(dir, "0"), []byte(b0), 0o644)
	os.WriteFile(filepath.Join(dir, "1"), []byte(b1), 0o644)
	os.WriteFile(filepath.Join(dir, ".2.tmp"), []byte("garbage"), 0o644)
	all, err := Open(out).AllFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 {
		t.Fatalf("AllFiles = %v, want the one file not deleted", all)
	}
	if p, err := all[0].LocalPath(); err != nil || p != filepath.FromSlash("/data/out/part-00000-a.c000.snappy.parquet") {
		t.Fatalf("LocalPath = %q, %v", p, err)
	}
	if id, ok, _ := Open(out).Latest(); !ok || id != 1 {
		t.Fatalf("Latest = %d %v, want 1", id, ok)
	}
}
