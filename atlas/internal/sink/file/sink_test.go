package file

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
)

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
}, nil)

var t0 = time.Date(2024, 3, 1, 10, 0, 0, 250_000_000, time.UTC)

// rows builds n rows from id `from`: name null for every third, score id/2.
func rows(t *testing.T, id, from int64, n int) *sink.Batch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := from; i < from+int64(n); i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		if i%3 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("n%d", i))
		}
		b.Field(2).(*array.Float64Builder).Append(float64(i) / 2)
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(t0.Add(time.Duration(i) * time.Second).UnixMicro()))
	}
	r := b.NewRecordBatch()
	t.Cleanup(r.Release)
	return &sink.Batch{QueryID: "q", BatchID: id, Mode: sink.Append, Schema: schema, Records: []arrow.RecordBatch{r}}
}

// wantJSON is the line Spark's JSON writer produces for row i.
func wantJSON(i int64) string {
	name := ""
	if i%3 != 0 {
		name = fmt.Sprintf(`"name":"n%d",`, i)
	}
	score := fmt.Sprintf("%g", float64(i)/2)
	if !strings.Contains(score, ".") {
		score += ".0"
	}
	ts := t0.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z")
	return fmt.Sprintf(`{"id":%d,%s"score":%s,"ts":"%s"}`, i, name, score, ts)
}

func readLines(t *testing.T, files []string) []string {
	t.Helper()
	var out []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			out = append(out, sc.Text())
		}
		fh.Close()
	}
	sort.Strings(out)
	return out
}

// TestFileSinkCrashMidBatchJSON: batch 1 crashes after its file is written
// and before its log entry. The file stays in the directory but the log
// does not list it; the replay writes batch 1 again to a new file and
// commits it; the committed files hold each row exactly once, in Spark's
// JSON format.
func TestFileSinkCrashMidBatchJSON(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s1, err := New(schema, Options{Format: "json", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := s1.AddBatch(ctx, rows(t, 0, 0, 5)); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	s1.afterFiles = func() error { return crash }
	if err := s1.AddBatch(ctx, rows(t, 1, 5, 4)); !errors.Is(err, crash) {
		t.Fatalf("batch 1 = %v, want the crash", err)
	}
	onDisk, _ := filepath.Glob(filepath.Join(dir, "part-*.json"))
	committed, ok, err := CommittedFiles(dir)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if len(onDisk) != 2 || len(committed) != 1 {
		t.Fatalf("after the crash: %d files on disk, %d committed; want 2 and 1", len(onDisk), len(committed))
	}
	s2, err := New(schema, Options{Format: "json", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.AddBatch(ctx, rows(t, 0, 0, 5)); err != nil { // replay of a committed batch: skipped
		t.Fatal(err)
	}
	if err := s2.AddBatch(ctx, rows(t, 1, 5, 4)); err != nil {
		t.Fatal(err)
	}
	committed, _, err = CommittedFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := int64(0); i < 9; i++ {
		want = append(want, wantJSON(i))
	}
	sort.Strings(want)
	if got := readLines(t, committed); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("committed rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFileSinkParquetAndCSV reads the Parquet output back with the
// Parquet reader and checks the CSV text.
func TestFileSinkParquetAndCSV(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := New(schema, Options{Format: "parquet", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	for id := int64(0); id < 3; id++ {
		if err := s.AddBatch(ctx, rows(t, id, id*4, 4)); err != nil {
			t.Fatal(err)
		}
	}
	files, _, err := CommittedFiles(dir)
	if err != nil || len(files) != 3 {
		t.Fatalf("committed %v (%v), want 3 files", files, err)
	}
	var ids []int64
	for _, f := range files {
		if !strings.HasSuffix(f, "-c000.snappy.parquet") {
			t.Fatalf("file %s is not named as Spark names Parquet parts", f)
		}
		rdr, err := pq.OpenParquetFile(f, false)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := fr.ReadTable(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tbl.Column(0).Data().Chunks() {
			ids = append(ids, c.(*array.Int64).Int64Values()...)
		}
		tbl.Release()
		rdr.Close()
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	if fmt.Sprint(ids) != fmt.Sprint([]int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) {
		t.Fatalf("parquet ids %v", ids)
	}

	cdir := t.TempDir()
	cs, err := New(schema, Options{Format: "csv", Path: cdir, Header: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.AddBatch(ctx, rows(t, 0, 2, 2)); err != nil {
		t.Fatal(err)
	}
	cfiles, _, _ := CommittedFiles(cdir)
	got := readLines(t, cfiles)
	want := []string{"2,n2,1.0,2024-03-01T10:00:02.250Z", "3,,1.5,2024-03-01T10:00:03.250Z", "id,name,score,ts"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("csv:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := cs.CheckMode(sink.Update); err == nil || !strings.Contains(err.Error(), "does not support update output mode") {
		t.Fatalf("update mode: %v", err)
	}
}
