package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// fileAt writes a file whose modification time is base+sec seconds, so
// tests choose the order the source sees files in.
func fileAt(t *testing.T, dir, name, content string, sec int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mt := time.Unix(1_700_000_000+int64(sec), 0)
	if err := os.Chtimes(p, mt, mt); err != nil {
		t.Fatal(err)
	}
	return p
}

// jsonFile returns JSON lines {"id":i,"name":"n<i>"} for ids.
func jsonFile(ids ...int) string {
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "{\"id\":%d,\"name\":\"n%d\"}\n", id, id)
	}
	return b.String()
}

// collector gathers foreachBatch output as batch id -> ids.
type collector struct {
	mu      sync.Mutex
	batches map[int64][]int64
	nulls   int
	failAt  int64 // batch id whose first delivery fails; -1 for none
}

func newCollector() *collector { return &collector{batches: map[int64][]int64{}, failAt: -1} }

var errInjected = errors.New("injected failure")

func (c *collector) fn(batch *engine.DataFrame, id int64) error {
	rows, err := batch.Rows(context.Background())
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == c.failAt {
		c.failAt = -1
		return errInjected
	}
	var ids []int64
	for _, r := range rows {
		v, ok := r["id"].(int64)
		if !ok {
			c.nulls++
			continue
		}
		ids = append(ids, v)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	c.batches[id] = ids
	return nil
}

func (c *collector) snapshot() map[int64][]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[int64][]int64{}
	for k, v := range c.batches {
		out[k] = append([]int64(nil), v...)
	}
	return out
}

func seq(from, to int) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, int64(i))
	}
	return out
}

func runFileStream(t *testing.T, s *engine.Session, df *engine.DataFrame, ck string, c *collector) (*engine.StreamingQuery, error) {
	t.Helper()
	q, err := df.WriteStream().
		Option("checkpointLocation", ck).
		Trigger(engine.AvailableNow()).
		Progress(false).
		ForeachBatch(c.fn).
		Start()
	if err != nil {
		t.Fatal(err)
	}
	return q, q.AwaitTermination()
}

func sameBatches(t *testing.T, got, want map[int64][]int64) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("batches:\n got %v\nwant %v", got, want)
	}
}

// TestFileStreamJSONExactlyOnce reads JSON files one per trigger, oldest
// first, across a failed batch (replayed with the same files although a
// file was added meanwhile), a restart, and files added between runs
// (one older than every file read so far): every line is read exactly
// once, and malformed lines are counted and given as null rows
// (PERMISSIVE).
func TestFileStreamJSONExactlyOnce(t *testing.T) {
	home := t.TempDir()
	in := filepath.Join(home, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	ck := filepath.Join(home, "ck")
	df := s.ReadStream().Schema("id bigint, name string").Option("maxFilesPerTrigger", 1).JSON(in)

	fileAt(t, in, "b.json", jsonFile(4, 5, 6)+"\n{not json\n", 20)
	fileAt(t, in, "a.json", jsonFile(1, 2, 3), 10)
	fileAt(t, in, "_hidden.json", jsonFile(99), 5)
	fileAt(t, in, ".also-hidden", jsonFile(98), 5)

	c := newCollector()
	c.failAt = 1
	q, err := runFileStream(t, s, df, ck, c)
	if !errors.Is(err, errInjected) {
		t.Fatalf("first run: %v, want the injected failure", err)
	}
	sameBatches(t, c.snapshot(), map[int64][]int64{0: seq(1, 3)})
	_ = q

	// A file added while batch 1 is logged but uncommitted must not join it.
	fileAt(t, in, "c.json", jsonFile(7, 8), 30)
	q, err = runFileStream(t, s, df, ck, c)
	if err != nil {
		t.Fatal(err)
	}
	sameBatches(t, c.snapshot(), map[int64][]int64{0: seq(1, 3), 1: seq(4, 6), 2: seq(7, 8)})
	if c.nulls != 1 {
		t.Fatalf("%d null rows, want the one malformed line", c.nulls)
	}
	var malformed int64
	for _, p := range q.RecentProgress() {
		malformed += p.ObservedMetrics["numMalformedRows"]
		if p.BatchID == 1 && !strings.Contains(string(p.Sources[0].EndOffset), `"logOffset":1`) {
			t.Errorf("batch 1 ends at %s, want logOffset 1", p.Sources[0].EndOffset)
		}
	}
	if malformed != 1 || q.Totals().Malformed != 1 {
		t.Fatalf("numMalformedRows %d, totals %d, want 1", malformed, q.Totals().Malformed)
	}

	// Restart with nothing new: no batch. Then two new files, one older
	// than everything read (still new: within maxFileAge of the latest).
	q, err = runFileStream(t, s, df, ck, c)
	if err != nil || len(q.RecentProgress()) != 0 {
		t.Fatalf("rerun without new files: %v, %d batches", err, len(q.RecentProgress()))
	}
	fileAt(t, in, "d.json", jsonFile(9), 40)
	fileAt(t, in, "old.json", jsonFile(0), 1)
	if _, err := runFileStream(t, s, df, ck, c); err != nil {
		t.Fatal(err)
	}
	sameBatches(t, c.snapshot(), map[int64][]int64{0: seq(1, 3), 1: seq(4, 6), 2: seq(7, 8), 3: {0}, 4: {9}})
	// The seen-files log is Spark's: sources/0/<N> with one entry per file.
	data, err := os.ReadFile(filepath.Join(ck, "sources", "0", "3"))
	if err != nil || !strings.HasPrefix(string(data), "v1\n{\"path\":\"file://") || !strings.Contains(string(data), "old.json\",\"timestamp\":1700000001000,\"batchId\":3}") {
		t.Fatalf("sources/0/3: %q, %v", data, err)
	}
}

// TestFileStreamMaxFilesAndLatestFirst checks batch sizes under
// maxFilesPerTrigger (oldest first) and the order under latestFirst.
func TestFileStreamMaxFilesAndLatestFirst(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	in := filepath.Join(home, "in")
	os.MkdirAll(in, 0o755)
	// File k (mtime k) holds the single id k; names run against mtimes.
	for k := 1; k <= 7; k++ {
		fileAt(t, in, fmt.Sprintf("f%d.json", 10-k), jsonFile(k), k)
	}
	c := newCollector()
	df := s.ReadStream().Schema("id bigint, name string").Option("maxFilesPerTrigger", 3).JSON(in)
	if _, err := runFileStream(t, s, df, filepath.Join(home, "ck1"), c); err != nil {
		t.Fatal(err)
	}
	sameBatches(t, c.snapshot(), map[int64][]int64{0: {1, 2, 3}, 1: {4, 5, 6}, 2: {7}})

	c = newCollector()
	df = s.ReadStream().Schema("id bigint, name string").Option("maxFilesPerTrigger", 2).Option("latestFirst", true).JSON(in)
	if _, err := runFileStream(t, s, df, filepath.Join(home, "ck2"), c); err != nil {
		t.Fatal(err)
	}
	sameBatches(t, c.snapshot(), map[int64][]int64{0: {6, 7}, 1: {4, 5}, 2: {2, 3}, 3: {1}})
}

// TestFileStreamCleanSource archives or deletes each file once its batch
// committed, and reads nothing twice on a restart.
func TestFileStreamCleanSource(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	in := filepath.Join(home, "in")
	sub := filepath.Join(in, "day=1")
	os.MkdirAll(sub, 0o755)
	a := fileAt(t, in, "a.json", jsonFile(1, 2), 1)
	b := fileAt(t, sub, "b.json", jsonFile(3), 2)
	archive := filepath.Join(home, "archive")
	c := newCollector()
	df := s.ReadStream().Schema("id bigint, name string").
		Option("cleanSource", "archive").Option("sourceArchiveDir", archive).Option("maxFilesPerTrigger", 1).JSON(in)
	if _, err := runFileStream(t, s, df, filepath.Join(home, "ck"), c); err != nil {
		t.Fatal(err)
	}
	sameBatches(t, c.snapshot(), map[int64][]int64{0: {1, 2}, 1: {3}})
	for _, p := range []string{a, b} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still in the source directory (%v)", p, err)
		}
		got, err := os.ReadFile(filepath.Join(archive, p))
		if err != nil {
			t.Errorf("%s was not archived at %s: %v", p, filepath.Join(archive, p), err)
		} else if !strings.Contains(string(got), `"id":`) {
			t.Errorf("archived %s holds %q", p, got)
		}
	}

	d := fileAt(t, in, "d.json", jsonFile(4), 3)
	c2 := newCollector()
	df = s.ReadStream().Schema("id bigint, name string").Option("cleanSource", "delete").JSON(in)
	if _, err := runFileStream(t, s, df, filepath.Join(home, "ck2"), c2); err != nil {
		t.Fatal(err)
	}
	sameBatches(t, c2.snapshot(), map[int64][]int64{0: {4}})
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Errorf("%s was not deleted (%v)", d, err)
	}

	// The archive must not be inside the watched directory.
	bad := s.ReadStream().Schema("id bigint").Option("cleanSource", "archive").Option("sourceArchiveDir", filepath.Join(in, "old")).JSON(in)
	if err := bad.Err(); err == nil || !strings.Contains(err.Error(), "must not contain one another") {
		t.Fatalf("archive inside the source: %v", err)
	}
	// A file sink's output is listed through its log: Spark refuses
	// cleanSource there.
	sinkOut := filepath.Join(home, "sinkout")
	os.MkdirAll(filepath.Join(sinkOut, "_spark_metadata"), 0o755)
	onSink := s.ReadStream().Schema("id bigint").Option("cleanSource", "delete").JSON(sinkOut)
	if err := onSink.Err(); err == nil || !strings.Contains(err.Error(), "output of a file sink") {
		t.Fatalf("cleanSource on a sink's output: %v", err)
	}
	noDir := s.ReadStream().Schema("id bigint").Option("cleanSource", "archive").JSON(in)
	if err := noDir.Err(); err == nil || !strings.Contains(err.Error(), "sourceArchiveDir") {
		t.Fatalf("archive without a directory: %v", err)
	}
}

// TestFileStreamCSVModes reads CSV with a header under each parse mode: a
// line with a bad number or the wrong number of fields is counted, kept
// with nulls (PERMISSIVE), left out (DROPMALFORMED) or fails the query
// naming the file and line (FAILFAST).
func TestFileStreamCSVModes(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	in := filepath.Join(home, "in")
	os.MkdirAll(in, 0o755)
	fileAt(t, in, "a.csv", "id,name,amount,ts\n1,\"Gasabo, Kigali\",2.5,2024-01-01 10:00:00\n2,Huye,x,2024-01-01T10:00:01Z\n3,Musanze,4\n4,Rubavu,1e3,2024-01-02\n", 1)
	schema := "id bigint, name string, amount double, ts timestamp"
	for _, tc := range []struct {
		mode  string
		ids   []int64
		nulls int
	}{{"PERMISSIVE", []int64{1, 2, 3, 4}, 0}, {"DROPMALFORMED", []int64{1, 4}, 0}} {
		var mu sync.Mutex
		var rows []engine.Row
		df := s.ReadStream().Schema(schema).Option("header", true).Option("mode", tc.mode).CSV(in)
		q, err := df.WriteStream().Option("checkpointLocation", filepath.Join(home, "ck-"+tc.mode)).
			Trigger(engine.AvailableNow()).Progress(false).
			ForeachBatch(func(b *engine.DataFrame, _ int64) error {
				r, err := b.Rows(context.Background())
				mu.Lock()
				rows = append(rows, r...)
				mu.Unlock()
				return err
			}).Start()
		if err != nil {
			t.Fatal(err)
		}
		if err := q.AwaitTermination(); err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, r := range rows {
			ids = append(ids, r["id"].(int64))
		}
		if fmt.Sprint(ids) != fmt.Sprint(tc.ids) {
			t.Fatalf("%s: ids %v, want %v", tc.mode, ids, tc.ids)
		}
		if q.Totals().Malformed != 2 {
			t.Fatalf("%s: %d malformed, want 2", tc.mode, q.Totals().Malformed)
		}
		first := rows[0]
		want := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
		if first["name"] != "Gasabo, Kigali" || first["amount"] != 2.5 || !first["ts"].(time.Time).Equal(want) {
			t.Fatalf("%s: first row %v", tc.mode, first)
		}
		if tc.mode == "PERMISSIVE" {
			if rows[1]["amount"] != nil || rows[1]["name"] != "Huye" || rows[2]["amount"] != 4.0 || rows[2]["ts"] != nil {
				t.Fatalf("partial rows: %v %v", rows[1], rows[2])
			}
		}
		if last := rows[len(rows)-1]; last["amount"] != 1000.0 || !last["ts"].(time.Time).Equal(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("%s: last row %v", tc.mode, last)
		}
	}
	df := s.ReadStream().Schema(schema).Option("header", true).Option("mode", "FAILFAST").CSV(in)
	q, err := df.WriteStream().Option("checkpointLocation", filepath.Join(home, "ck-ff")).
		Trigger(engine.AvailableNow()).Progress(false).
		ForeachBatch(func(*engine.DataFrame, int64) error { return nil }).Start()
	if err != nil {
		t.Fatal(err)
	}
	err = q.AwaitTermination()
	if err == nil || !strings.Contains(err.Error(), "a.csv line 3: malformed record") {
		t.Fatalf("FAILFAST: %v", err)
	}
}

// TestFileStreamSchemaRequired: JSON and CSV streams need a schema, as in
// Spark, and say how to give one.
func TestFileStreamSchemaRequired(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	dir := t.TempDir()
	for _, f := range []string{"json", "csv"} {
		err := s.ReadStream().Format(f).Load(dir).Err()
		if err == nil || !strings.Contains(err.Error(), "a schema must be specified") || !strings.Contains(err.Error(), "Schema(") {
			t.Errorf("%s without schema: %v", f, err)
		}
	}
	err := s.ReadStream().Schema("a int").JSON(filepath.Join(dir, "missing")).Err()
	if err == nil || !strings.Contains(err.Error(), "path does not exist") {
		t.Errorf("missing path: %v", err)
	}
	err = s.ReadStream().Schema("a int").Option("maxFilesPerTrigger", 0).JSON(dir).Err()
	if err == nil || !strings.Contains(err.Error(), "'maxFilesPerTrigger', must be a positive integer") {
		t.Errorf("maxFilesPerTrigger 0: %v", err)
	}
}

// writeParquet writes ids with their names and event times (ms) as a
// Parquet file with arrow-go's writer, then sets its modification time.
func writeParquet(t *testing.T, dir, name string, sec int, ids []int64) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("n%d", id))
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(id * 1000))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer tbl.Release()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := pqarrow.WriteTable(tbl, f, 1024, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	f.Close()
	mt := time.Unix(1_700_000_000+int64(sec), 0)
	os.Chtimes(p, mt, mt)
}

// TestFileStreamParquet streams Parquet files written in the test, with
// the schema taken from the files (millisecond times read as
// microseconds), one file per trigger, exactly once across a restart.
func TestFileStreamParquet(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	in := filepath.Join(home, "in")
	os.MkdirAll(in, 0o755)
	writeParquet(t, in, "p1.parquet", 1, []int64{1, 2})
	writeParquet(t, in, "p2.parquet", 2, []int64{3})
	df := s.ReadStream().Option("maxFilesPerTrigger", 1).Parquet(in)
	if err := df.Err(); err != nil {
		t.Fatal(err)
	}
	if got := df.Schema().String(); !strings.Contains(got, "id: type=int64") || !strings.Contains(got, "ts: type=timestamp[us") {
		t.Fatalf("schema %s", got)
	}
	var mu sync.Mutex
	times := map[int64]time.Time{}
	c := newCollector()
	collect := func(b *engine.DataFrame, id int64) error {
		rows, err := b.Rows(context.Background())
		if err != nil {
			return err
		}
		mu.Lock()
		for _, r := range rows {
			times[r["id"].(int64)] = r["ts"].(time.Time)
		}
		mu.Unlock()
		return c.fn(b, id)
	}
	ck := filepath.Join(home, "ck")
	run := func() {
		q, err := df.WriteStream().Option("checkpointLocation", ck).Trigger(engine.AvailableNow()).Progress(false).ForeachBatch(collect).Start()
		if err != nil {
			t.Fatal(err)
		}
		if err := q.AwaitTermination(); err != nil {
			t.Fatal(err)
		}
	}
	run()
	writeParquet(t, in, "p3.parquet", 3, []int64{4, 5})
	run()
	sameBatches(t, c.snapshot(), map[int64][]int64{0: {1, 2}, 1: {3}, 2: {4, 5}})
	for id, ts := range times {
		if !ts.Equal(time.UnixMilli(id * 1000).UTC()) {
			t.Errorf("id %d: ts %v", id, ts)
		}
	}
	// A user schema picks and casts columns by name.
	df2 := s.ReadStream().Schema("name string, id int, missing string").Parquet(in)
	q, err := df2.WriteStream().Option("checkpointLocation", filepath.Join(home, "ck2")).Trigger(engine.AvailableNow()).Progress(false).
		ForeachBatch(func(b *engine.DataFrame, _ int64) error {
			rows, err := b.Rows(context.Background())
			for _, r := range rows {
				if r["name"] != fmt.Sprintf("n%d", r["id"]) || r["missing"] != nil {
					return fmt.Errorf("row %v", r)
				}
			}
			return err
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
}

// TestReadCSVBatch: spark.read.csv(path, header=True) as the course uses
// it gives string columns named by the header; with a schema, typed ones.
func TestReadCSVBatch(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	dir := t.TempDir()
	p := fileAt(t, dir, "districts.csv", "district,province\nGasabo,Kigali\nHuye,Southern\n", 1)
	rows, err := s.Read().Option("header", true).CSV(p).Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rows) != "[map[district:Gasabo province:Kigali] map[district:Huye province:Southern]]" {
		t.Fatalf("rows %v", rows)
	}
	n, err := s.Read().Format("json").Schema("id bigint, name string").Option("mode", "DROPMALFORMED").Load(dir).Count(context.Background())
	if err != nil || n != 0 {
		t.Fatalf("json over a dir of csv: %d rows, %v", n, err)
	}
}

// TestFileStreamLogCompactionAcrossRestart runs twelve one-file batches
// over two runs: the seen-files log in the checkpoint is compacted at
// batch 9 as Spark's (9.compact replaces 0..9) and the second run, restored
// from it, reads only the new files.
func TestFileStreamLogCompactionAcrossRestart(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	in := filepath.Join(home, "in")
	os.MkdirAll(in, 0o755)
	for k := 0; k < 8; k++ {
		fileAt(t, in, fmt.Sprintf("f%02d.json", k), jsonFile(k), k)
	}
	ck := filepath.Join(home, "ck")
	df := s.ReadStream().Schema("id bigint, name string").Option("maxFilesPerTrigger", 1).JSON(in)
	c := newCollector()
	if _, err := runFileStream(t, s, df, ck, c); err != nil {
		t.Fatal(err)
	}
	for k := 8; k < 12; k++ {
		fileAt(t, in, fmt.Sprintf("f%02d.json", k), jsonFile(k), k)
	}
	if _, err := runFileStream(t, s, df, ck, c); err != nil {
		t.Fatal(err)
	}
	want := map[int64][]int64{}
	for k := 0; k < 12; k++ {
		want[int64(k)] = []int64{int64(k)}
	}
	sameBatches(t, c.snapshot(), want)
	ents, err := os.ReadDir(filepath.Join(ck, "sources", "0"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if fmt.Sprint(names) != "[10 11 9.compact]" {
		t.Fatalf("sources/0 holds %v", names)
	}
}
