package merge

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// kv is the schema of the test tables: a key and a value.
var kv = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

func kvRecord(ids, ns []int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, kv)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	b.Field(1).(*array.Int64Builder).AppendValues(ns, nil)
	return b.NewRecordBatch()
}

// upsertSpec is MERGE INTO target t USING source s ON t.id = s.id WHEN
// MATCHED AND s.n < 0 THEN DELETE WHEN MATCHED THEN UPDATE SET * WHEN NOT
// MATCHED THEN INSERT *, parsed by the SQL parser.
func upsertSpec(t *testing.T, target string) sql.MergeSpec {
	t.Helper()
	st, err := parser.Parse("MERGE INTO " + target + " t USING src s ON t.id = s.id " +
		"WHEN MATCHED AND s.n < 0 THEN DELETE WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
	if err != nil {
		t.Fatal(err)
	}
	m := st.(*parser.Merge)
	return sql.MergeSpec{Target: target, TargetAlias: "t", SourceAlias: "s", On: m.On, Clauses: m.Clauses}
}

func readTable(t *testing.T, tbl *lakehouse.Table) map[int64]int64 {
	t.Helper()
	if err := tbl.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs, err := tbl.ReadAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]int64{}
	for _, r := range recs {
		ids, ns := r.Column(0).(*array.Int64), r.Column(1).(*array.Int64)
		for i := 0; i < int(r.NumRows()); i++ {
			if _, dup := got[ids.Value(i)]; dup {
				t.Fatalf("id %d twice in the table", ids.Value(i))
			}
			got[ids.Value(i)] = ns.Value(i)
		}
		r.Release()
	}
	return got
}

// Run applies an upsert-with-delete to a table in both merge modes, with
// counts and rows equal to the same clauses applied to a Go map; a second
// Run with the same Commit is skipped (exactly-once replay).
func TestRunUpsertBothModes(t *testing.T) {
	for _, mode := range []string{lakehouse.CopyOnWrite, lakehouse.MergeOnRead} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			lh, err := lakehouse.Open(ctx, lakehouse.Config{
				URI:       lakehouse.SQLiteURI(filepath.Join(dir, "catalog.db")),
				Warehouse: "file://" + filepath.ToSlash(filepath.Join(dir, "wh")),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = lh.Close() })
			const name = "lakehouse.silver.kv"
			tbl, err := lh.CreateTable(ctx, name, kv, lakehouse.CreateOptions{Properties: map[string]string{lakehouse.PropMergeMode: mode}})
			if err != nil {
				t.Fatal(err)
			}
			ref := map[int64]int64{}
			var ids, ns []int64
			for id := int64(0); id < 100; id++ {
				ids, ns = append(ids, id), append(ns, id*10)
				ref[id] = id * 10
			}
			seed := kvRecord(ids, ns)
			if _, err := tbl.AppendBatch(ctx, []arrow.RecordBatch{seed}, lakehouse.Commit{}); err != nil {
				t.Fatal(err)
			}
			seed.Release()

			// Source: update 10..19, delete 20..24 (n < 0), insert 200..204.
			ids, ns = nil, nil
			var wantUpd, wantDel, wantIns int64
			for id := int64(10); id < 20; id++ {
				ids, ns = append(ids, id), append(ns, id+1000)
			}
			for id := int64(20); id < 25; id++ {
				ids, ns = append(ids, id), append(ns, -1)
			}
			for id := int64(200); id < 205; id++ {
				ids, ns = append(ids, id), append(ns, id)
			}
			for i, id := range ids {
				_, found := ref[id]
				switch {
				case found && ns[i] < 0:
					delete(ref, id)
					wantDel++
				case found:
					ref[id] = ns[i]
					wantUpd++
				default:
					ref[id] = ns[i]
					wantIns++
				}
			}
			commit := lakehouse.Commit{QueryID: "q", BatchID: 3}
			run := func() Result {
				res, err := Run(ctx, Request{Table: tbl, Spec: upsertSpec(t, name), Schema: kv,
					Source: []arrow.RecordBatch{kvRecord(ids, ns)}, Commit: commit, KeyIndexes: NewKeyIndexCache(DefaultKeyIndexRows)})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			res := run()
			if res.Mode != mode || res.Skipped || res.NumUpdatedRows != wantUpd || res.NumDeletedRows != wantDel ||
				res.NumInsertedRows != wantIns || res.NumAffectedRows != wantUpd+wantDel+wantIns {
				t.Fatalf("result %+v, want mode %s, %d updated, %d deleted, %d inserted", res, mode, wantUpd, wantDel, wantIns)
			}
			if got := readTable(t, tbl); !maps.Equal(got, ref) {
				t.Fatalf("table %v\nwant %v", got, ref)
			}
			if again := run(); !again.Skipped || again.NumAffectedRows != 0 {
				t.Fatalf("replayed merge %+v, want skipped", again)
			}
			if got := readTable(t, tbl); !maps.Equal(got, ref) {
				t.Fatalf("table after the replay %v\nwant %v", got, ref)
			}
		})
	}
}

// LatestRows keeps the row with the greatest order value per key (the
// later row on ties, nulls in a group of their own and losing to any
// value), checked against a quadratic scan of the same rows.
func TestLatestRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 500
	mem := memory.DefaultAllocator
	kb, ob := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	defer kb.Release()
	defer ob.Release()
	type r struct {
		key, ord       int64
		keyNul, ordNul bool
	}
	rows := make([]r, n)
	for i := range rows {
		rows[i] = r{key: rng.Int64N(40), ord: rng.Int64N(10), keyNul: rng.IntN(20) == 0, ordNul: rng.IntN(10) == 0}
		if rows[i].keyNul {
			kb.AppendNull()
		} else {
			kb.Append(rows[i].key)
		}
		if rows[i].ordNul {
			ob.AppendNull()
		} else {
			ob.Append(rows[i].ord)
		}
	}
	keys, ords := kb.NewArray(), ob.NewArray()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "o", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{keys, ords}, n)
	keys.Release()
	ords.Release()
	defer rec.Release()

	got, err := LatestRows(rec, []int{0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Reference: row i is kept when no later row of its group orders at or
	// above it and no earlier row orders above it.
	sameGroup := func(a, b r) bool { return a.keyNul == b.keyNul && (a.keyNul || a.key == b.key) }
	above := func(a, b r) bool { // a orders strictly above b
		if a.ordNul || b.ordNul {
			return !a.ordNul && b.ordNul
		}
		return a.ord > b.ord
	}
	var want []int32
	for i, a := range rows {
		kept := true
		for j, b := range rows {
			if j == i || !sameGroup(a, b) {
				continue
			}
			if (j > i && !above(a, b)) || (j < i && above(b, a)) {
				kept = false
				break
			}
		}
		if kept {
			want = append(want, int32(i))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("kept rows %v\nwant %v", got, want)
	}

	bad := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.FixedWidthTypes.Boolean}}, nil),
		[]arrow.Array{array.NewBooleanBuilder(mem).NewArray()}, 0)
	defer bad.Release()
	if _, err := LatestRows(bad, []int{0}, 0); err == nil {
		t.Fatal("ordering by a boolean column did not fail")
	}
}

// A key index finds exactly the positions of each key (composite keys,
// nulls never indexed), as a map of the same rows does.
func TestKeyIndexLookup(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 2000
	mem := memory.DefaultAllocator
	sb, ib := array.NewStringBuilder(mem), array.NewInt64Builder(mem)
	ref := map[string][]int32{}
	for i := 0; i < n; i++ {
		s, v := fmt.Sprintf("k%d", rng.IntN(50)), rng.Int64N(20)
		null := rng.IntN(25) == 0
		if null {
			sb.AppendNull()
		} else {
			sb.Append(s)
		}
		ib.Append(v)
		if !null {
			ref[fmt.Sprintf("%s/%d", s, v)] = append(ref[fmt.Sprintf("%s/%d", s, v)], int32(i))
		}
	}
	cols := []arrow.Array{sb.NewArray(), ib.NewArray()}
	sb.Release()
	ib.Release()
	defer cols[0].Release()
	defer cols[1].Release()
	ix := buildKeyIndex(cols, n)
	for s := 0; s < 52; s++ { // two string keys that were never written
		for v := int64(0); v < 20; v++ {
			kb, vb := array.NewStringBuilder(mem), array.NewInt64Builder(mem)
			kb.Append(fmt.Sprintf("k%d", s))
			vb.Append(v)
			probe := []arrow.Array{kb.NewArray(), vb.NewArray()}
			key, ok := appendKey(nil, probe, 0)
			if !ok {
				t.Fatal("non-null probe key reported null")
			}
			var got []int32
			ix.lookup(key, func(p int32) { got = append(got, p) })
			slices.Sort(got)
			if want := ref[fmt.Sprintf("k%d/%d", s, v)]; !slices.Equal(got, want) {
				t.Fatalf("key k%d/%d: positions %v, want %v", s, v, got, want)
			}
			probe[0].Release()
			probe[1].Release()
			kb.Release()
			vb.Release()
		}
	}
}

// forEachFile visits every file once and stops at the first error,
// returning it.
func TestForEachFile(t *testing.T) {
	files := make([]lakehouse.DataFile, 50)
	for i := range files {
		files[i].Path = fmt.Sprint(i)
	}
	var seen [50]atomic.Int32
	err := forEachFile(context.Background(), files, func(_ context.Context, _ *expr.Ctx, f lakehouse.DataFile) error {
		var i int
		fmt.Sscan(f.Path, &i)
		seen[i].Add(1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range seen {
		if n := seen[i].Load(); n != 1 {
			t.Fatalf("file %d visited %d times", i, n)
		}
	}
	boom := errors.New("boom")
	err = forEachFile(context.Background(), files, func(_ context.Context, _ *expr.Ctx, f lakehouse.DataFile) error {
		if f.Path == "7" {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
}
