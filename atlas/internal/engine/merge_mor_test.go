package engine_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// morSchema is the target of the merge-on-read tests: a key, a value a
// change replaces and a counter a change may add to.
var morSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// morChangeSchema is a change: the row plus its operation (u, d, c).
var morChangeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "op", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

type morRow struct {
	v string
	n int64
}

type morChange struct {
	id int64
	v  string
	n  int64
	op string
}

func morRecord(rows map[int64]morRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, morSchema)
	defer b.Release()
	for _, id := range slices.Sorted(mapKeys(rows)) {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(rows[id].v)
		b.Field(2).(*array.Int64Builder).Append(rows[id].n)
	}
	return b.NewRecordBatch()
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func morChangeRecord(chs []morChange) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, morChangeSchema)
	defer b.Release()
	for _, c := range chs {
		b.Field(0).(*array.Int64Builder).Append(c.id)
		b.Field(1).(*array.StringBuilder).Append(c.v)
		b.Field(2).(*array.Int64Builder).Append(c.n)
		b.Field(3).(*array.StringBuilder).Append(c.op)
	}
	return b.NewRecordBatch()
}

// readMor reads the table into a map, failing on a key held twice.
func readMor(t *testing.T, tbl *lakehouse.Table) map[int64]morRow {
	t.Helper()
	ctx := context.Background()
	if err := tbl.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	recs, err := tbl.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]morRow{}
	for _, r := range recs {
		ids, vs, ns := r.Column(0).(*array.Int64), r.Column(1).(*array.String), r.Column(2).(*array.Int64)
		for i := 0; i < int(r.NumRows()); i++ {
			if _, dup := out[ids.Value(i)]; dup {
				t.Fatalf("%s: id %d is in the table twice", tbl.Name(), ids.Value(i))
			}
			out[ids.Value(i)] = morRow{vs.Value(i), ns.Value(i)}
		}
		r.Release()
	}
	return out
}

func diffMor(t *testing.T, what string, got, want map[int64]morRow) {
	t.Helper()
	if len(got) != len(want) {
		var extra, missing []int64
		for id := range got {
			if _, ok := want[id]; !ok {
				extra = append(extra, id)
			}
		}
		for id := range want {
			if _, ok := got[id]; !ok {
				missing = append(missing, id)
			}
		}
		t.Fatalf("%s: %d rows, want %d: extra ids %v, missing ids %v", what, len(got), len(want), extra, missing)
	}
	for id, w := range want {
		if g, ok := got[id]; !ok || g != w {
			t.Fatalf("%s: id %d is %+v (present %v), want %+v", what, id, g, ok, w)
		}
	}
}

// createMorTable creates a target with props and loads rows as files of
// `per` ids each.
func createMorTable(t *testing.T, s *engine.Session, name string, props map[string]string, rows map[int64]morRow, per int, partitionBy ...string) *lakehouse.Table {
	t.Helper()
	ctx := context.Background()
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := lh.CreateTable(ctx, name, morSchema, lakehouse.CreateOptions{Properties: props, PartitionBy: partitionBy})
	if err != nil {
		t.Fatal(err)
	}
	ids := slices.Sorted(mapKeys(rows))
	for lo := 0; lo < len(ids); lo += per {
		part := map[int64]morRow{}
		for _, id := range ids[lo:min(lo+per, len(ids))] {
			part[id] = rows[id]
		}
		rec := morRecord(part)
		if _, err := tbl.AppendBatch(ctx, []arrow.RecordBatch{rec}, lakehouse.Commit{}); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	return tbl
}

// morChanges draws a batch of changes with distinct keys over the live
// keys of ref (updates, deletes) and new keys (inserts, some of them keys
// deleted earlier, and a few deletes of keys that do not exist).
func morChanges(rng *rand.Rand, ref map[int64]morRow, next *int64, batch int) []morChange {
	live := slices.Sorted(mapKeys(ref))
	seen := map[int64]bool{}
	var out []morChange
	for range 60 {
		id := live[rng.IntN(len(live))]
		if seen[id] {
			continue
		}
		seen[id] = true
		op := "u"
		if rng.IntN(5) == 0 {
			op = "d"
		}
		out = append(out, morChange{id, fmt.Sprintf("b%d-%d", batch, id), int64(rng.IntN(100)), op})
	}
	for range 20 {
		id := *next
		*next++
		seen[id] = true
		out = append(out, morChange{id, fmt.Sprintf("b%d-%d", batch, id), int64(rng.IntN(100)), "c"})
	}
	for range 3 { // a key deleted earlier comes back, or a delete of a missing key
		id := rng.Int64N(*next)
		if seen[id] {
			continue
		}
		if _, ok := ref[id]; !ok {
			seen[id] = true
			op := "c"
			if rng.IntN(2) == 0 {
				op = "d"
			}
			out = append(out, morChange{id, fmt.Sprintf("b%d-%d", batch, id), 7, op})
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// applyMor is the independent replay: the latest change per key, a
// delete removes the key; addN makes an update add n to the old n.
func applyMor(ref map[int64]morRow, chs []morChange, addN bool) {
	for _, c := range chs {
		old, ok := ref[c.id]
		switch {
		case c.op == "d":
			delete(ref, c.id)
		case ok && addN:
			ref[c.id] = morRow{c.v, old.n + c.n}
		default:
			ref[c.id] = morRow{c.v, c.n}
		}
	}
}

// mergeMor runs the CDC MERGE of chs into name.
func mergeMor(t *testing.T, s *engine.Session, name string, chs []morChange, addN bool) engine.MergeResult {
	t.Helper()
	rec := morChangeRecord(chs)
	src := s.CreateDataFrame(morChangeSchema, []arrow.RecordBatch{rec})
	rec.Release()
	set := map[string]string{"v": "s.v", "n": "s.n"}
	if addN {
		set["n"] = "t.n + s.n"
	}
	res, err := s.MergeInto(name).As("t").Using(src, "s").On("t.id = s.id").
		WhenMatchedDelete("s.op = 'd'").
		WhenMatchedUpdate(set).
		WhenNotMatchedInsert(map[string]string{"id": "s.id", "v": "s.v", "n": "s.n"}, "s.op != 'd'").
		Execute(context.Background())
	if err != nil {
		t.Fatalf("merge into %s: %v", name, err)
	}
	return res
}

func initialMor(n int64) map[int64]morRow {
	ref := map[int64]morRow{}
	for id := int64(0); id < n; id++ {
		ref[id] = morRow{fmt.Sprintf("v0-%d", id), id % 10}
	}
	return ref
}

// A merge-on-read table (write.merge.mode) and a copy-on-write table take
// the same CDC batches; after every batch both equal an independent replay
// (key → latest row), through a scan, SQL count(*) and LatestPerKey, and the
// merge-on-read merges rewrite no data file but write delete files. Then
// compaction folds the deletes back (no delete file left), expiry drops the
// old snapshots, more merges follow: still equal. Run with updates that
// read only the source (the matched rows located by their keys alone) and
// with updates reading the target (n = t.n + s.n), on format v2 (position
// delete files) and v3 (deletion vectors).
func TestMergeOnReadEqualsCopyOnWriteAndReplay(t *testing.T) {
	for _, tc := range []struct {
		name        string
		version     string
		granularity string
		addN        bool
	}{
		{"v2-keys-only", "2", lakehouse.DeleteGranularityPartition, false},
		{"v2-target-values-file-granularity", "2", lakehouse.DeleteGranularityFile, true},
		{"v3-deletion-vectors", "3", "", true},
		{"v2-partitioned", "2", lakehouse.DeleteGranularityPartition, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
			t.Cleanup(s.Stop)
			ref := initialMor(1000)
			var parts []string
			if strings.Contains(tc.name, "partitioned") {
				parts = []string{"bucket(4, id)"}
			}
			mor := createMorTable(t, s, "lakehouse.t.mor", map[string]string{lakehouse.PropMergeMode: lakehouse.MergeOnRead, "format-version": tc.version, lakehouse.PropDeleteGranularity: tc.granularity}, ref, 250, parts...)
			cow := createMorTable(t, s, "lakehouse.t.cow", map[string]string{"format-version": tc.version}, ref, 250, parts...)
			if mor.MergeMode() != lakehouse.MergeOnRead || cow.MergeMode() != lakehouse.CopyOnWrite {
				t.Fatalf("modes %s, %s", mor.MergeMode(), cow.MergeMode())
			}
			rng := rand.New(rand.NewPCG(7, uint64(len(tc.name))))
			next := int64(1000)
			check := func(what string) {
				t.Helper()
				got := readMor(t, mor)
				diffMor(t, what+": merge-on-read scan", got, ref)
				diffMor(t, what+": copy-on-write scan", readMor(t, cow), ref)
				n, err := s.Table("lakehouse.t.mor").Count(ctx)
				if err != nil || n != int64(len(ref)) {
					t.Fatalf("%s: DataFrame count %d (%v), want %d", what, n, err, len(ref))
				}
				rows, err := s.SQL("SELECT count(*) AS c, sum(n) AS total FROM lakehouse.t.mor")
				if err != nil {
					t.Fatal(err)
				}
				r, err := rows.Rows(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var total int64
				for _, row := range ref {
					total += row.n
				}
				if r[0]["c"] != int64(len(ref)) || r[0]["total"] != total {
					t.Fatalf("%s: SQL count %v sum %v, want %d %d", what, r[0]["c"], r[0]["total"], len(ref), total)
				}
				latest, err := s.Table("lakehouse.t.mor").LatestPerKey([]string{"id"}, "n").Count(ctx)
				if err != nil || latest != int64(len(ref)) {
					t.Fatalf("%s: LatestPerKey count %d (%v), want %d", what, latest, err, len(ref))
				}
			}
			deleteFiles := 0
			for b := 1; b <= 8; b++ {
				chs := morChanges(rng, ref, &next, b)
				rm := mergeMor(t, s, "lakehouse.t.mor", chs, tc.addN)
				rc := mergeMor(t, s, "lakehouse.t.cow", chs, tc.addN)
				applyMor(ref, chs, tc.addN)
				if rm.Mode != lakehouse.MergeOnRead || rm.FilesRewritten != 0 || rm.DeleteFilesWritten == 0 {
					t.Fatalf("batch %d: merge-on-read result %+v: want mode merge-on-read, no file rewritten, delete files written", b, rm)
				}
				if rc.Mode != lakehouse.CopyOnWrite || rc.FilesRewritten == 0 {
					t.Fatalf("batch %d: copy-on-write result %+v", b, rc)
				}
				if rm.NumUpdatedRows != rc.NumUpdatedRows || rm.NumDeletedRows != rc.NumDeletedRows || rm.NumInsertedRows != rc.NumInsertedRows {
					t.Fatalf("batch %d: counts differ: merge-on-read %+v, copy-on-write %+v", b, rm, rc)
				}
				deleteFiles += rm.DeleteFilesWritten
				check(fmt.Sprintf("batch %d", b))
			}
			if err := mor.Refresh(ctx); err != nil {
				t.Fatal(err)
			}
			if withDeletes := filesWithDeletes(t, mor); withDeletes == 0 {
				t.Fatalf("no data file has deletes after %d delete files were written", deleteFiles)
			}
			res, err := mor.Compact(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			if res.FilesRemoved == 0 {
				t.Fatalf("compaction did nothing: %+v", res)
			}
			if n := filesWithDeletes(t, mor); n != 0 {
				t.Fatalf("after compaction %d data files still have deletes", n)
			}
			check("after compaction")
			if _, err := mor.ExpireSnapshots(ctx, 0, 1); err != nil {
				t.Fatal(err)
			}
			check("after expiry")
			for b := 9; b <= 11; b++ {
				chs := morChanges(rng, ref, &next, b)
				mergeMor(t, s, "lakehouse.t.mor", chs, tc.addN)
				mergeMor(t, s, "lakehouse.t.cow", chs, tc.addN)
				applyMor(ref, chs, tc.addN)
			}
			check("merges after compaction and expiry")
		})
	}
}

// filesWithDeletes counts the live data files that delete files apply to.
func filesWithDeletes(t *testing.T, tbl *lakehouse.Table) int {
	t.Helper()
	files, err := tbl.PlanFiles(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if f.DeleteFiles() > 0 {
			n++
		}
	}
	return n
}

// The table property switches modes between merges: merge-on-read merges
// delete rows by position, then copy-on-write merges rewrite the same
// files, then merge-on-read again, then CALL rewrite_data_files. The rows
// deleted or updated by merge-on-read never come back (iceberg-go's own
// copy-on-write over merge-on-read deletes resurrects them,
// apache/iceberg-go#2042), and the table equals the replay throughout.
func TestMergeModeSwitchNeverResurrects(t *testing.T) {
	ctx := context.Background()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	const name = "lakehouse.t.switch"
	ref := initialMor(400)
	tbl := createMorTable(t, s, name, map[string]string{lakehouse.PropMergeMode: lakehouse.MergeOnRead}, ref, 200)
	rng := rand.New(rand.NewPCG(3, 4))
	next := int64(400)
	modes := []string{lakehouse.MergeOnRead, lakehouse.MergeOnRead, lakehouse.CopyOnWrite, lakehouse.CopyOnWrite, lakehouse.MergeOnRead, lakehouse.CopyOnWrite}
	for b, mode := range modes {
		if err := tbl.SetProperties(ctx, map[string]string{lakehouse.PropMergeMode: mode}); err != nil {
			t.Fatal(err)
		}
		chs := morChanges(rng, ref, &next, b+1)
		res := mergeMor(t, s, name, chs, true)
		applyMor(ref, chs, true)
		if res.Mode != mode {
			t.Fatalf("batch %d ran %s, the table says %s", b, res.Mode, mode)
		}
		if mode == lakehouse.CopyOnWrite && res.FilesRewritten == 0 || mode == lakehouse.MergeOnRead && res.DeleteFilesWritten == 0 {
			t.Fatalf("batch %d (%s): %+v", b, mode, res)
		}
		diffMor(t, fmt.Sprintf("batch %d (%s)", b, mode), readMor(t, tbl), ref)
	}
	// rewrite_data_files (Compact) folds the deletes back.
	if _, err := s.SQL("CALL lakehouse.system.rewrite_data_files(table => 't.switch')"); err != nil {
		t.Fatal(err)
	}
	diffMor(t, "after rewrite_data_files", readMor(t, tbl), ref)
	if n := filesWithDeletes(t, tbl); n != 0 {
		t.Fatalf("%d data files keep deletes after compaction", n)
	}
}

// WHEN NOT MATCHED BY SOURCE under merge-on-read reads every live row (not
// only the keys of the source): deleting the rows the source lacks, after
// earlier merge-on-read deletes, leaves exactly the source's keys, as
// copy-on-write does.
func TestMergeOnReadNotMatchedBySource(t *testing.T) {
	ctx := context.Background()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	ref := initialMor(300)
	for _, mode := range []string{lakehouse.MergeOnRead, lakehouse.CopyOnWrite} {
		name := "lakehouse.t.nmbs_" + strings.ReplaceAll(mode, "-", "_")
		want := maps.Clone(ref)
		tbl := createMorTable(t, s, name, map[string]string{lakehouse.PropMergeMode: mode}, ref, 100)
		rng := rand.New(rand.NewPCG(5, 6))
		next := int64(300)
		chs := morChanges(rng, want, &next, 1)
		mergeMor(t, s, name, chs, true)
		applyMor(want, chs, true)
		// The source keeps ids divisible by 3 among the live ones, with a
		// new value: matched ones are updated, the others deleted.
		var keep []morChange
		for id := range want {
			if id%3 == 0 {
				keep = append(keep, morChange{id, fmt.Sprintf("keep-%d", id), 1, "u"})
			}
		}
		rec := morChangeRecord(keep)
		src := s.CreateDataFrame(morChangeSchema, []arrow.RecordBatch{rec})
		rec.Release()
		res, err := s.MergeInto(name).As("t").Using(src, "s").On("t.id = s.id").
			WhenMatchedUpdate(map[string]string{"v": "s.v", "n": "t.n + s.n"}).
			WhenNotMatchedBySourceDelete().
			Execute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		final := map[int64]morRow{}
		for _, c := range keep {
			final[c.id] = morRow{c.v, want[c.id].n + 1}
		}
		if res.NumUpdatedRows != int64(len(keep)) || res.NumDeletedRows != int64(len(want)-len(keep)) {
			t.Fatalf("%s: %+v, want %d updated, %d deleted", mode, res, len(keep), len(want)-len(keep))
		}
		diffMor(t, mode, readMor(t, tbl), final)
	}
}
