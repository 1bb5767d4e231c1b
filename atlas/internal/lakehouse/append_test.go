package lakehouse

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
)

func TestAppendReadAll(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb := createTestTable(t, lh, CreateOptions{})

	// An empty table reads as no rows, through both APIs.
	if recs, err := tb.ReadAll(ctx); err != nil || len(recs) != 0 {
		t.Fatalf("ReadAll of an empty table: %d batches, %v", len(recs), err)
	}
	sc, recs, err := tb.Scan(ctx, ScanOptions{Columns: []string{"id", "user"}})
	if err != nil || len(recs) != 0 || sc.NumFields() != 2 {
		t.Fatalf("Scan of an empty table: %v, %d batches, %v", sc, len(recs), err)
	}

	var want []row
	for b := range 3 {
		rows := genRows(int64(b)*1000, 250+b)
		want = append(want, rows...)
		// Several record batches per append must still make one file.
		ok, err := tb.AppendBatch(ctx, batchesOf(t, rows, 64), Commit{QueryID: "q1", BatchID: int64(b)})
		if err != nil || !ok {
			t.Fatalf("append batch %d: %v %v", b, ok, err)
		}
	}
	all, err := tb.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, all, want)
	for _, r := range all {
		if !r.Schema().Equal(testSchema) {
			t.Fatalf("ReadAll schema\n%v\nwant\n%v", r.Schema(), testSchema)
		}
	}

	files, err := tb.PlanFiles(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Errorf("%d data files after 3 appends, want 3 (one per append)", len(files))
	}

	// iceberg-go's own scan reads the same rows, from a fresh catalog load.
	fresh, err := lh.Catalog().LoadTable(ctx, tb.Identifier())
	if err != nil {
		t.Fatal(err)
	}
	at, err := fresh.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Release()
	tr := array.NewTableReader(at, 1<<20)
	defer tr.Release()
	var icebergRecs []arrow.RecordBatch
	for tr.Next() {
		r := tr.RecordBatch()
		r.Retain()
		icebergRecs = append(icebergRecs, r)
	}
	assertRows(t, icebergRecs, want)

	// Filtered, projected scan: compare with the filter applied in Go.
	sc, recs, err = tb.Scan(ctx, ScanOptions{
		Filter:  iceberg.NewAnd(iceberg.GreaterThanEqual(iceberg.Reference("id"), int64(1100)), iceberg.EqualTo(iceberg.Reference("ok"), true)),
		Columns: []string{"id", "amount"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sc.NumFields() != 2 || sc.Field(0).Name != "id" || sc.Field(1).Name != "amount" {
		t.Errorf("projected schema %v", sc)
	}
	var wantF []row
	for _, r := range want {
		if r.ID >= 1100 && r.OK {
			wantF = append(wantF, row{ID: r.ID, Amount: r.Amount})
		}
	}
	assertRows(t, recs, wantF)

	// Time travel to the first snapshot.
	snaps := tb.Snapshots()
	if len(snaps) != 3 {
		t.Fatalf("%d snapshots, want 3", len(snaps))
	}
	_, recs, err = tb.Scan(ctx, ScanOptions{SnapshotID: snaps[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, recs, want[:250])
}

func TestReplayIsSkipped(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb := createTestTable(t, lh, CreateOptions{})

	if _, ok, err := tb.LastCommittedBatch(ctx, "q"); ok || err != nil {
		t.Fatalf("LastCommittedBatch before any write = %v, %v", ok, err)
	}
	b5 := genRows(0, 100)
	if ok, err := tb.AppendBatch(ctx, batchesOf(t, b5, 100), Commit{QueryID: "q", BatchID: 5}); !ok || err != nil {
		t.Fatalf("first append: %v %v", ok, err)
	}
	nsnap := len(tb.Snapshots())
	// Replaying batch 5, or an older batch, writes nothing.
	for _, id := range []int64{5, 4, 0} {
		ok, err := tb.AppendBatch(ctx, batchesOf(t, genRows(500, 10), 100), Commit{QueryID: "q", BatchID: id})
		if ok || err != nil {
			t.Fatalf("replay of batch %d: committed=%v err=%v", id, ok, err)
		}
	}
	all, _ := tb.ReadAll(ctx)
	assertRows(t, all, b5)
	if len(tb.Snapshots()) != nsnap {
		t.Errorf("%d snapshots after replays, want %d", len(tb.Snapshots()), nsnap)
	}

	// Another query with the same batch id is a different batch.
	other := genRows(1000, 7)
	if ok, err := tb.AppendBatch(ctx, batchesOf(t, other, 100), Commit{QueryID: "q2", BatchID: 5}); !ok || err != nil {
		t.Fatalf("append of q2: %v %v", ok, err)
	}
	if b, ok, err := tb.LastCommittedBatch(ctx, "q"); b != 5 || !ok || err != nil {
		t.Errorf("LastCommittedBatch(q) = %d %v %v, want 5", b, ok, err)
	}
	next := genRows(2000, 3)
	if ok, err := tb.AppendBatch(ctx, batchesOf(t, next, 100), Commit{QueryID: "q", BatchID: 6}); !ok || err != nil {
		t.Fatalf("append of batch 6: %v %v", ok, err)
	}
	if b, ok, err := tb.LastCommittedBatch(ctx, "q"); b != 6 || !ok || err != nil {
		t.Errorf("LastCommittedBatch(q) = %d %v %v, want 6", b, ok, err)
	}
	all, _ = tb.ReadAll(ctx)
	assertRows(t, all, append(append(append([]row{}, b5...), other...), next...))
}

func TestStaleHandleReplay(t *testing.T) {
	ctx := context.Background()
	a, b := twoWriters(t, t.TempDir(), nil)
	rows := genRows(0, 40)
	if ok, err := a.AppendBatch(ctx, batchesOf(t, rows, 100), Commit{QueryID: "q", BatchID: 1}); !ok || err != nil {
		t.Fatalf("append: %v %v", ok, err)
	}
	// b still believes the table is empty: its replay must be caught by the
	// commit's compare-and-swap, not by its stale cache.
	if ok, err := b.AppendBatch(ctx, batchesOf(t, rows, 100), Commit{QueryID: "q", BatchID: 1}); ok || err != nil {
		t.Fatalf("stale replay: committed=%v err=%v", ok, err)
	}
	all, _ := b.ReadAll(ctx) // b was refreshed by the failed commit
	assertRows(t, all, rows)
	files, _ := b.PlanFiles(ctx, nil)
	if len(files) != 1 {
		t.Errorf("%d files, want 1", len(files))
	}
}

func TestEmptyBatchIsCommitted(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb := createTestTable(t, lh, CreateOptions{})
	for id := range int64(2) {
		ok, err := tb.AppendBatch(ctx, nil, Commit{QueryID: "q", BatchID: id})
		if !ok || err != nil {
			t.Fatalf("empty batch %d: %v %v", id, ok, err)
		}
	}
	snaps := tb.Snapshots()
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots, want 2", len(snaps))
	}
	for i, s := range snaps {
		if b, ok := s.BatchID(); !ok || b != int64(i) || s.QueryID() != "q" || s.Summary["total-records"] != "0" {
			t.Errorf("snapshot %d: %+v", i, s)
		}
	}
	if ok, err := tb.AppendBatch(ctx, nil, Commit{QueryID: "q", BatchID: 1}); ok || err != nil {
		t.Errorf("replayed empty batch: %v %v", ok, err)
	}
	// An empty record batch counts as zero rows.
	empty := buildBatch(t, testSchema, nil)
	if ok, err := tb.OverwriteBatch(ctx, []arrow.RecordBatch{empty}, Commit{QueryID: "q", BatchID: 2}); !ok || err != nil {
		t.Errorf("empty overwrite: %v %v", ok, err)
	}
	if b, ok, err := tb.LastCommittedBatch(ctx, "q"); b != 2 || !ok || err != nil {
		t.Errorf("LastCommittedBatch = %d %v %v", b, ok, err)
	}
	if recs, err := tb.ReadAll(ctx); len(recs) != 0 || err != nil {
		t.Errorf("ReadAll: %d batches, %v", len(recs), err)
	}
}

func TestOverwriteReplaces(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb := createTestTable(t, lh, CreateOptions{PartitionBy: []string{"days(ts)"}})
	// Overwrite on a never-written table.
	first := genRows(0, 300)
	if ok, err := tb.OverwriteBatch(ctx, batchesOf(t, first, 100), Commit{QueryID: "q", BatchID: 0}); !ok || err != nil {
		t.Fatalf("overwrite 0: %v %v", ok, err)
	}
	if ok, err := tb.AppendBatch(ctx, batchesOf(t, genRows(300, 50), 100), Commit{QueryID: "other", BatchID: 0}); !ok || err != nil {
		t.Fatalf("append: %v %v", ok, err)
	}
	second := genRows(10_000, 120)
	if ok, err := tb.OverwriteBatch(ctx, batchesOf(t, second, 100), Commit{QueryID: "q", BatchID: 1}); !ok || err != nil {
		t.Fatalf("overwrite 1: %v %v", ok, err)
	}
	all, err := tb.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, all, second)
	cur, _ := tb.CurrentSnapshot()
	if cur.Operation != "overwrite" || cur.Summary["total-records"] != "120" {
		t.Errorf("current snapshot %s, total-records %s", cur.Operation, cur.Summary["total-records"])
	}
	if ok, err := tb.OverwriteBatch(ctx, batchesOf(t, first, 100), Commit{QueryID: "q", BatchID: 1}); ok || err != nil {
		t.Errorf("replayed overwrite: %v %v", ok, err)
	}
	// Overwrite with nothing empties the table.
	if ok, err := tb.OverwriteBatch(ctx, nil, Commit{QueryID: "q", BatchID: 2}); !ok || err != nil {
		t.Fatalf("overwrite 2: %v %v", ok, err)
	}
	if all, err := tb.ReadAll(ctx); len(all) != 0 || err != nil {
		t.Errorf("after empty overwrite: %d batches, %v", len(all), err)
	}
}

func TestSnapshotSummaries(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb := createTestTable(t, lh, CreateOptions{})
	c := Commit{QueryID: "3f2c", BatchID: 42, Extra: map[string]string{"atlas.source": "kafka", PropBatchID: "spoofed"}}
	if ok, err := tb.AppendBatch(ctx, batchesOf(t, genRows(0, 10), 100), c); !ok || err != nil {
		t.Fatal(ok, err)
	}
	s, ok := tb.CurrentSnapshot()
	if !ok {
		t.Fatal("no snapshot")
	}
	for k, v := range map[string]string{
		PropQueryID: "3f2c", PropBatchID: "42", PropSparkQueryID: "3f2c", PropSparkEpochID: "42",
		"atlas.source": "kafka", "added-records": "10", "total-records": "10",
	} {
		if s.Summary[k] != v {
			t.Errorf("summary %s = %q, want %q", k, s.Summary[k], v)
		}
	}
	if len(s.Summary[PropWriteID]) != 32 || s.Operation != "append" {
		t.Errorf("write id %q, operation %q", s.Summary[PropWriteID], s.Operation)
	}
	// A commit without a query id is a plain write, always committed.
	for range 2 {
		if ok, err := tb.AppendBatch(ctx, batchesOf(t, genRows(100, 1), 100), Commit{}); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if s, _ := tb.CurrentSnapshot(); s.Summary[PropQueryID] != "" || s.Summary["total-records"] != "12" {
		t.Errorf("plain write summary %v", s.Summary)
	}
	// Snapshots are in commit order.
	snaps := tb.Snapshots()
	for i := 1; i < len(snaps); i++ {
		if snaps[i].ParentID != snaps[i-1].ID {
			t.Errorf("snapshot %d parent %d, want %d", i, snaps[i].ParentID, snaps[i-1].ID)
		}
	}
	if !snaps[len(snaps)-1].Current || snaps[0].Current {
		t.Errorf("current flag wrong: %+v", snaps)
	}
}

func TestAppendAlignsColumns(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb := createTestTable(t, lh, CreateOptions{})
	commit := func(b int64) Commit { return Commit{QueryID: "q", BatchID: b} }

	// Reordered columns, nullable id (no nulls), nanosecond timestamps,
	// int16 n, upper-case name: all accepted.
	odd := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "OK", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "n", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "user", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	rows := genRows(0, 50)
	rec := buildBatch(t, odd, rows)
	if ok, err := tb.AppendBatch(ctx, []arrow.RecordBatch{rec}, commit(0)); !ok || err != nil {
		t.Fatalf("aligned append: %v %v", ok, err)
	}
	if rec.NumRows() != 50 || rec.Column(0).Len() != 50 {
		t.Errorf("input record was released or changed")
	}
	all, _ := tb.ReadAll(ctx)
	assertRows(t, all, rows) // ns → us truncates the +123 ns

	errCases := []struct {
		name string
		sc   *arrow.Schema
		want string
	}{
		{"missing", withoutField(testSchema, "amount"), `column "amount" (float64) is missing`},
		{"extra", withField(testSchema, arrow.Field{Name: "extra", Type: arrow.BinaryTypes.String, Nullable: true}), `column "extra", which the table does not have`},
		{"mistyped", replaceField(testSchema, arrow.Field{Name: "id", Type: arrow.BinaryTypes.String}), `column "id" has type utf8 in the batch but int64 in the table`},
	}
	for _, c := range errCases {
		_, err := tb.AppendBatch(ctx, []arrow.RecordBatch{buildBatch(t, c.sc, rows[:3])}, commit(1))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// Nulls in a required column.
	b := array.NewRecordBuilder(memory.DefaultAllocator, replaceField(testSchema, arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}))
	for i, f := range b.Fields() {
		if i == 0 {
			f.(*array.Int64Builder).AppendNull()
		} else {
			f.AppendNull()
		}
	}
	_, err := tb.AppendBatch(ctx, []arrow.RecordBatch{b.NewRecordBatch()}, commit(1))
	if err == nil || !strings.Contains(err.Error(), `column "id" is required (NOT NULL) but the batch holds 1 null values`) {
		t.Errorf("null in required column: %v", err)
	}
	// Failed writes committed nothing and left no files behind.
	if n := len(tb.Snapshots()); n != 1 {
		t.Errorf("%d snapshots after failed writes, want 1", n)
	}
	if b, _, _ := tb.LastCommittedBatch(ctx, "q"); b != 0 {
		t.Errorf("last batch %d", b)
	}
}

func withoutField(sc *arrow.Schema, name string) *arrow.Schema {
	var fs []arrow.Field
	for _, f := range sc.Fields() {
		if f.Name != name {
			fs = append(fs, f)
		}
	}
	return arrow.NewSchema(fs, nil)
}

func withField(sc *arrow.Schema, f arrow.Field) *arrow.Schema {
	return arrow.NewSchema(append(sc.Fields(), f), nil)
}

func replaceField(sc *arrow.Schema, nf arrow.Field) *arrow.Schema {
	fs := sc.Fields()
	for i, f := range fs {
		if f.Name == nf.Name {
			fs[i] = nf
		}
	}
	return arrow.NewSchema(fs, nil)
}
