package lakehouse

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// openTest opens a lakehouse on a sqlite catalog in dir (a fresh temp dir
// when empty) and closes it at the end of the test.
func openTest(t testing.TB, dir string) *Lakehouse {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	lh, err := Open(context.Background(), Config{
		URI:       SQLiteURI(filepath.Join(dir, "catalog.db")),
		Warehouse: "file://" + filepath.ToSlash(filepath.Join(dir, "wh")),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lh.Close() })
	return lh
}

// testSchema is the schema of the test tables.
var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "user", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

// row is one row of testSchema as plain Go values.
type row struct {
	ID       int64
	User     string
	UserNull bool
	Amount   float64
	TSMicros int64
	Day      int32
	N        int32
	OK       bool
}

const baseMicros = int64(1_700_000_000_000_000)

// genRows returns n deterministic rows with ids start..start+n-1.
func genRows(start int64, n int) []row {
	out := make([]row, n)
	for i := range out {
		id := start + int64(i)
		out[i] = row{
			ID:       id,
			User:     fmt.Sprintf("u%d", id%7),
			UserNull: id%11 == 0,
			Amount:   float64(id) * 1.5,
			TSMicros: baseMicros + id*1_000_000,
			Day:      19000 + int32(id%30),
			N:        int32(id % 100),
			OK:       id%2 == 0,
		}
		if out[i].UserNull {
			out[i].User = ""
		}
	}
	return out
}

// buildBatch builds a record batch of rows on sc, which may order, type
// (timestamp unit, int width) and null-flag testSchema's columns
// differently, or hold a subset of them.
func buildBatch(t testing.TB, sc *arrow.Schema, rows []row) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, f := range sc.Fields() {
		fb := b.Field(i)
		for _, r := range rows {
			switch strings.ToLower(f.Name) {
			case "id":
				switch x := fb.(type) {
				case *array.Int64Builder:
					x.Append(r.ID)
				case *array.Int32Builder:
					x.Append(int32(r.ID))
				case *array.StringBuilder:
					x.Append(fmt.Sprint(r.ID))
				}
			case "user":
				x := fb.(*array.StringBuilder)
				if r.UserNull {
					x.AppendNull()
				} else {
					x.Append(r.User)
				}
			case "amount":
				fb.(*array.Float64Builder).Append(r.Amount)
			case "ts":
				x := fb.(*array.TimestampBuilder)
				switch f.Type.(*arrow.TimestampType).Unit {
				case arrow.Nanosecond:
					x.Append(arrow.Timestamp(r.TSMicros*1000 + 123))
				case arrow.Millisecond:
					x.Append(arrow.Timestamp(r.TSMicros / 1000))
				default:
					x.Append(arrow.Timestamp(r.TSMicros))
				}
			case "day":
				fb.(*array.Date32Builder).Append(arrow.Date32(r.Day))
			case "n":
				switch x := fb.(type) {
				case *array.Int32Builder:
					x.Append(r.N)
				case *array.Int16Builder:
					x.Append(int16(r.N))
				}
			case "ok":
				fb.(*array.BooleanBuilder).Append(r.OK)
			default:
				fb.AppendNull()
			}
		}
	}
	return b.NewRecordBatch()
}

// batchesOf splits rows into record batches of at most size rows.
func batchesOf(t testing.TB, rows []row, size int) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for len(rows) > 0 {
		n := min(size, len(rows))
		out = append(out, buildBatch(t, testSchema, rows[:n]))
		rows = rows[n:]
	}
	return out
}

// readRows turns record batches of (a projection of) testSchema back into
// rows, by column name; absent columns stay zero.
func readRows(t testing.TB, recs []arrow.RecordBatch) []row {
	t.Helper()
	var out []row
	for _, rec := range recs {
		base := len(out)
		out = append(out, make([]row, rec.NumRows())...)
		for c, f := range rec.Schema().Fields() {
			col := rec.Column(c)
			for i := 0; i < int(rec.NumRows()); i++ {
				r := &out[base+i]
				switch f.Name {
				case "id":
					r.ID = col.(*array.Int64).Value(i)
				case "user":
					if col.IsNull(i) {
						r.UserNull = true
					} else {
						r.User = col.(*array.String).Value(i)
					}
				case "amount":
					r.Amount = col.(*array.Float64).Value(i)
				case "ts":
					if u := col.DataType().(*arrow.TimestampType).Unit; u != arrow.Microsecond {
						t.Fatalf("ts read back with unit %s", u)
					}
					r.TSMicros = int64(col.(*array.Timestamp).Value(i))
				case "day":
					r.Day = int32(col.(*array.Date32).Value(i))
				case "n":
					r.N = col.(*array.Int32).Value(i)
				case "ok":
					r.OK = col.(*array.Boolean).Value(i)
				default:
					t.Fatalf("unexpected column %q", f.Name)
				}
			}
		}
	}
	return out
}

func sortRows(rs []row) []row {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b row) int {
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return cmp.Compare(a.Amount, b.Amount)
	})
	return rs
}

// assertRows checks that recs hold exactly want (in any order).
func assertRows(t testing.TB, recs []arrow.RecordBatch, want []row) {
	t.Helper()
	got := sortRows(readRows(t, recs))
	want = sortRows(want)
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

// createTestTable creates gold.events with testSchema.
func createTestTable(t testing.TB, lh *Lakehouse, opts CreateOptions) *Table {
	t.Helper()
	tb, err := lh.CreateTable(context.Background(), "lakehouse.gold.events", testSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// twoWriters opens two lakehouses on one catalog in dir, as two processes
// would: a creates the test table, seed (when set) writes to it, then b
// loads it. The tests of concurrent commits start from it.
func twoWriters(t *testing.T, dir string, seed func(a *Table)) (a, b *Table) {
	t.Helper()
	lhA, lhB := openTest(t, dir), openTest(t, dir)
	a = createTestTable(t, lhA, CreateOptions{})
	if seed != nil {
		seed(a)
	}
	b, err := lhB.LoadTable(context.Background(), "gold.events")
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}
