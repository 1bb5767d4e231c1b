package file

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

func write(t *testing.T, dir, name string, sec int64, ids ...int) {
	t.Helper()
	p := filepath.Join(dir, name)
	var b []byte
	for _, id := range ids {
		b = append(b, fmt.Sprintf("{\"id\":%d}\n", id)...)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	mt := time.Unix(sec, 0)
	os.Chtimes(p, mt, mt)
}

func ids(t *testing.T, s *Source, start, end source.Offset) []int64 {
	t.Helper()
	var out []int64
	err := s.GetBatch(context.Background(), start, end, func(rec arrow.RecordBatch) error {
		c := rec.Column(0).(*array.Int64)
		for i := 0; i < c.Len(); i++ {
			out = append(out, c.Value(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// TestSeenFilesAcrossInstances plans batches as a default trigger does
// (listing each time), with files arriving between plans, then restores a
// new instance from the same log: nothing is taken twice, and a file older
// than maxFileAge behind the newest file of the last batch is never taken
// (Spark's SeenFilesMap).
func TestSeenFilesAcrossInstances(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema, _ := types.ParseDDL("id bigint")
	opts := map[string]string{"path": dir, "maxFilesPerTrigger": "2", "maxFileAge": "1h"}
	s, err := New("json", opts, schema)
	if err != nil {
		t.Fatal(err)
	}
	log := &memLog{}
	if err := s.UseMetadataLog(ctx, log); err != nil {
		t.Fatal(err)
	}
	start, _ := s.InitialOffset(ctx)
	if end, _ := s.LatestOffset(ctx, start); end != start {
		t.Fatalf("empty directory: %s", end)
	}
	base := int64(1_700_000_000)
	write(t, dir, "a.json", base+10, 1)
	write(t, dir, "b.json", base+20, 2)
	write(t, dir, "c.json", base+30, 3)
	end, _ := s.LatestOffset(ctx, start)
	if string(end) != `{"logOffset":0}` || fmt.Sprint(ids(t, s, start, end)) != "[1 2]" {
		t.Fatalf("batch 0: %s %v", end, ids(t, s, start, end))
	}
	start = end
	write(t, dir, "d.json", base+5, 4) // older than a, but new
	end, _ = s.LatestOffset(ctx, start)
	if fmt.Sprint(ids(t, s, start, end)) != "[3 4]" {
		t.Fatalf("batch 1: %v", ids(t, s, start, end))
	}
	s.Close()

	// A new instance on the same log: the seen files are restored.
	s2, _ := New("json", opts, schema)
	defer s2.Close()
	if err := s2.UseMetadataLog(ctx, log); err != nil {
		t.Fatal(err)
	}
	start = end
	if again, _ := s2.LatestOffset(ctx, start); again != start {
		t.Fatalf("restored instance takes files again: %s", again)
	}
	// e is the newest; f is more than an hour older than e, but the purge
	// line is still the one of the last batch (an hour before c), so both
	// are new, as in Spark.
	write(t, dir, "e.json", base+4000, 5)
	write(t, dir, "f.json", base+4000-3600-10, 6)
	end, _ = s2.LatestOffset(ctx, start)
	if fmt.Sprint(ids(t, s2, start, end)) != "[5 6]" {
		t.Fatalf("batch 2: %v", ids(t, s2, start, end))
	}
	// Now the line is an hour before e: h, older, is never taken; g is.
	start = end
	write(t, dir, "g.json", base+4000-3600+10, 7)
	write(t, dir, "h.json", base+4000-3600-20, 8)
	end, _ = s2.LatestOffset(ctx, start)
	if got := fmt.Sprint(ids(t, s2, start, end)); got != "[7]" {
		t.Fatalf("batch 3: %v (h is older than maxFileAge behind e)", got)
	}
}

// TestSeenFilesLogCompaction takes one file per batch for 25 batches: the
// log is compacted as Spark's (9.compact, then 19.compact with every
// entry, the files they replace deleted), a compacted batch still reads
// back its own files, and a restored instance takes nothing twice.
func TestSeenFilesLogCompaction(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema, _ := types.ParseDDL("id bigint")
	opts := map[string]string{"path": dir, "maxFilesPerTrigger": "1"}
	for i := 0; i < 25; i++ {
		write(t, dir, fmt.Sprintf("f%02d.json", i), 1_700_000_000+int64(i), i)
	}
	log := &memLog{}
	s, _ := New("json", opts, schema)
	if err := s.UseMetadataLog(ctx, log); err != nil {
		t.Fatal(err)
	}
	var offsets []source.Offset
	start, _ := s.InitialOffset(ctx)
	offsets = append(offsets, start)
	for i := 0; i < 25; i++ {
		end, err := s.LatestOffset(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(ids(t, s, start, end)); got != fmt.Sprintf("[%d]", i) {
			t.Fatalf("batch %d: %s", i, got)
		}
		offsets = append(offsets, end)
		start = end
	}
	names, _ := log.List(ctx)
	sort.Strings(names)
	if fmt.Sprint(names) != "[19.compact 20 21 22 23 24]" {
		t.Fatalf("log files %v", names)
	}
	data, _, _ := log.Get(ctx, "19.compact")
	es, err := decodeEntries(19, data)
	if err != nil || len(es) != 20 || es[0].BatchID != 0 || es[19].BatchID != 19 {
		t.Fatalf("19.compact: %d entries, %v", len(es), err)
	}
	// A replay of a compacted batch reads its own file only.
	if got := fmt.Sprint(ids(t, s, offsets[4], offsets[6])); got != "[4 5]" {
		t.Fatalf("replay of batches 4..5: %s", got)
	}
	s.Close()

	s2, _ := New("json", opts, schema)
	defer s2.Close()
	if err := s2.UseMetadataLog(ctx, log); err != nil {
		t.Fatal(err)
	}
	if again, _ := s2.LatestOffset(ctx, start); again != start {
		t.Fatalf("restored instance takes files again: %s", again)
	}
	write(t, dir, "new.json", 1_700_000_100, 99)
	end, _ := s2.LatestOffset(ctx, start)
	if string(end) != `{"logOffset":25}` || fmt.Sprint(ids(t, s2, start, end)) != "[99]" {
		t.Fatalf("after restore: %s %v", end, ids(t, s2, start, end))
	}
	if got := fmt.Sprint(ids(t, s2, offsets[17], offsets[19])); got != "[17 18]" {
		t.Fatalf("restored replay of batches 17..18: %s", got)
	}
}

// TestCSVStringsAsWritten reads awkward string fields (quotes, a
// backslash, a line break and a tab inside quotes, a control character,
// non-ASCII) and compares them with encoding/csv's own reading of the file.
func TestCSVStringsAsWritten(t *testing.T) {
	dir := t.TempDir()
	content := "1,\"say \"\"hi\"\"\"\n2,back\\slash\n3,\"two\nlines\"\n4,\"tab\there\"\n5,bell\x07\n6,Kigali – Rwanda ü\n"
	p := filepath.Join(dir, "s.csv")
	os.WriteFile(p, []byte(content), 0o644)
	want, err := csv.NewReader(strings.NewReader(content)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	schema, _ := types.ParseDDL("id bigint, s string")
	r, err := NewReader("csv", schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got [][]string
	bad, err := r.ReadFile(context.Background(), p, func(rec arrow.RecordBatch) error {
		ids, ss := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, []string{fmt.Sprint(ids.Value(i)), ss.Value(i)})
		}
		return nil
	})
	if err != nil || bad != 0 {
		t.Fatalf("%d malformed, %v", bad, err)
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// TestLoggedBatchRunsAsPlanned: a run logs batch 1 (one file, with
// maxFilesPerTrigger 1) and dies before the query records the micro-batch;
// a new instance asked for the batch after batch 0 gets that logged batch
// as it was (its one file, not also the next new one), and asked again (a
// retried plan) logs nothing more; only the batch after it takes a new file.
func TestLoggedBatchRunsAsPlanned(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema, _ := types.ParseDDL("id bigint")
	opts := map[string]string{"path": dir, "maxFilesPerTrigger": "1"}
	for i := 0; i < 4; i++ {
		write(t, dir, fmt.Sprintf("f%d.json", i), 1_700_000_000+int64(i), i)
	}
	log := &memLog{}
	s, _ := New("json", opts, schema)
	if err := s.UseMetadataLog(ctx, log); err != nil {
		t.Fatal(err)
	}
	init, _ := s.InitialOffset(ctx)
	b0, _ := s.LatestOffset(ctx, init)
	if b1, _ := s.LatestOffset(ctx, b0); string(b1) != `{"logOffset":1}` {
		t.Fatalf("batch 1 logged as %s", b1)
	}
	s.Close() // the crash: batch 1 is logged, the query never ran it

	s2, _ := New("json", opts, schema)
	defer s2.Close()
	if err := s2.UseMetadataLog(ctx, log); err != nil {
		t.Fatal(err)
	}
	for try := 0; try < 2; try++ {
		end, err := s2.LatestOffset(ctx, b0)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(ids(t, s2, b0, end)); string(end) != `{"logOffset":1}` || got != "[1]" {
			t.Fatalf("try %d: the batch after batch 0 is %s reading %s, want the logged batch 1 reading [1]", try, end, got)
		}
	}
	b1 := source.Offset(`{"logOffset":1}`)
	end, _ := s2.LatestOffset(ctx, b1)
	if got := fmt.Sprint(ids(t, s2, b1, end)); string(end) != `{"logOffset":2}` || got != "[2]" {
		t.Fatalf("the batch after batch 1 is %s reading %s, want batch 2 reading [2]", end, got)
	}
}
