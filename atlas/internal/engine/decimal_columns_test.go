package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// A DECIMAL(10,2) column of a Parquet file reads as Arrow decimal128 and
// compares with integers and decimal literals by value; its arithmetic and
// aggregates follow Spark's types. The file is written here with
// pqarrow; the expected rows are worked out by hand from its values
// 1.50, 2.00, -3.25 and NULL.
func TestDecimalParquetColumnsCompareAndAggregate(t *testing.T) {
	s := sqlSession(t)
	dir := t.TempDir()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i, v := range []int64{150, 200, -325, 0} {
		b.Field(0).(*array.Int32Builder).Append(int32(i + 1))
		if i == 3 {
			b.Field(1).AppendNull()
			continue
		}
		b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer tbl.Release()
	f, err := os.Create(filepath.Join(dir, "p.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pqarrow.WriteTable(tbl, f, 1024, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := s.Read().Format("parquet").Load(dir).CreateOrReplaceTempView("prices"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    string
		cols []string
		want []string
	}{
		{"SELECT id, price FROM prices WHERE price = 2 ORDER BY id", []string{"id", "price"}, []string{"id=2 price=2.00"}},
		{"SELECT id, price FROM prices WHERE price > 1 ORDER BY id", []string{"id", "price"}, []string{"id=1 price=1.50", "id=2 price=2.00"}},
		{"SELECT id FROM prices WHERE price < 1.6 ORDER BY id", []string{"id"}, []string{"id=1", "id=3"}},
		// DECIMAL(10,2) * 2 (DECIMAL(1,0)) is DECIMAL(12,2); + 1 DECIMAL(11,2).
		{"SELECT id, price * 2 AS p FROM prices WHERE id = 3", []string{"id", "p"}, []string{"id=3 p=-6.50"}},
		{"SELECT id, price + 1 AS p FROM prices WHERE id = 1", []string{"id", "p"}, []string{"id=1 p=2.50"}},
		// sum 0.25 (DECIMAL(20,2)); avg 0.25 / 3 = 0.083333 (DECIMAL(14,6)).
		{"SELECT sum(price) AS s, avg(price) AS a, min(price) AS lo, max(price) AS hi FROM prices", []string{"s", "a", "lo", "hi"}, []string{"s=0.25 a=0.083333 lo=-3.25 hi=2.00"}},
	} {
		sameLines(t, c.q, render(rowsOf(t, mustSQL(t, s, c.q)), c.cols...), c.want)
	}
}

// An Iceberg table's DECIMAL(10,2) column stores what INSERT gives it
// (9.995 rounds half up to 10.00) and compares with integers.
func TestDecimalIcebergColumn(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.dec")
	mustSQL(t, s, "CREATE TABLE lakehouse.dec.t (id int, price decimal(10,2)) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.dec.t VALUES (1, 9.99), (2, 10), (3, NULL), (4, 9.995)")
	sameLines(t, "stored", render(rowsOf(t, mustSQL(t, s, "SELECT id, price FROM lakehouse.dec.t WHERE price >= 10 ORDER BY id")), "id", "price"),
		[]string{"id=2 price=10.00", "id=4 price=10.00"})
	sameLines(t, "sum", render(rowsOf(t, mustSQL(t, s, "SELECT sum(price) AS s FROM lakehouse.dec.t")), "s"), []string{"s=29.99"})
}
