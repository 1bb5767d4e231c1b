package expr

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// benchRecord is a rate-source-shaped batch: timestamp and value.
func benchRecord(n int) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "timestamp", Type: types.Timestamp}, {Name: "value", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(t0 + int64(i)*20_000))
		b.Field(1).(*array.Int64Builder).Append(int64(i))
	}
	return b.NewRecordBatch()
}

func benchExpr(b *testing.B, e Expr) {
	rec := benchRecord(1 << 20)
	defer rec.Release()
	bound, err := e.Bind(rec.Schema())
	if err != nil {
		b.Fatal(err)
	}
	c := NewCtx(context.Background())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := bound.Eval(c, rec)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(rec.NumRows())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// BenchmarkDistrictElementAt is the course lab's district column:
// element_at(array('Gasabo', 'Huye', 'Musanze', 'Rubavu'), CAST(value % 4 + 1 AS int)).
func BenchmarkDistrictElementAt(b *testing.B) {
	arr := &MakeArray{Args: []Expr{Lit("Gasabo"), Lit("Huye"), Lit("Musanze"), Lit("Rubavu")}}
	idx := &Cast{X: Bin("+", Bin("%", Col("value"), Lit(int64(4))), Lit(int64(1))), TypeName: "int"}
	benchExpr(b, &ElementAt{X: arr, Index: idx})
}

// BenchmarkCaseWhen is CASE WHEN value % 3 = 0 THEN 'a' WHEN value % 3 = 1 THEN 'b' ELSE 'c' END.
func BenchmarkCaseWhen(b *testing.B) {
	m := Bin("%", Col("value"), Lit(int64(3)))
	benchExpr(b, &CaseWhen{Branches: []WhenBranch{{Cond: Bin("=", m, Lit(int64(0))), Value: Lit("a")}, {Cond: Bin("=", m, Lit(int64(1))), Value: Lit("b")}}, Else: Lit("c")})
}

// BenchmarkDateFormat is date_format(timestamp, 'yyyy-MM-dd HH:mm:ss').
func BenchmarkDateFormat(b *testing.B) {
	benchExpr(b, &DateFormat{X: Col("timestamp"), Format: "yyyy-MM-dd HH:mm:ss"})
}

// BenchmarkTimestampPlusInterval is timestamp + INTERVAL 10 MINUTES.
func BenchmarkTimestampPlusInterval(b *testing.B) {
	benchExpr(b, Bin("+", Col("timestamp"), Lit(10*time.Minute)))
}
