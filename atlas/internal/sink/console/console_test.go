package console

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
)

// TestBatchPrintsAsTheGuide prints two micro-batches of the Structured
// Streaming Programming Guide's Quick Example (word counts of "apache
// spark", then "apache hadoop") and compares with the guide's terminal
// output (docs/structured-streaming-programming-guide.md, Spark 3.5 and
// 4.0): each batch's table is followed by an empty line, as ConsoleSink
// prints show()'s println(showString).
func TestBatchPrintsAsTheGuide(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "value", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "count", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	batch := func(words []string, counts []int64) []arrow.RecordBatch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		b.Field(0).(*array.StringBuilder).AppendValues(words, nil)
		b.Field(1).(*array.Int64Builder).AppendValues(counts, nil)
		rec := b.NewRecordBatch()
		t.Cleanup(rec.Release)
		return []arrow.RecordBatch{rec}
	}
	var out strings.Builder
	s, err := New(&out, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.AddBatch(ctx, &sink.Batch{BatchID: 0, Schema: schema, Records: batch([]string{"apache", "spark"}, []int64{1, 1})}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddBatch(ctx, &sink.Batch{BatchID: 1, Schema: schema, Records: batch([]string{"apache", "spark", "hadoop"}, []int64{2, 1, 1})}); err != nil {
		t.Fatal(err)
	}
	want := `-------------------------------------------
Batch: 0
-------------------------------------------
+------+-----+
| value|count|
+------+-----+
|apache|    1|
| spark|    1|
+------+-----+

-------------------------------------------
Batch: 1
-------------------------------------------
+------+-----+
| value|count|
+------+-----+
|apache|    2|
| spark|    1|
|hadoop|    1|
+------+-----+

`
	if out.String() != want {
		t.Errorf("console output:\n%s\nwant:\n%s", out.String(), want)
	}
}
