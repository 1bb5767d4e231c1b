package table

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
)

// TestShowStringMatchesSparkSuite checks ShowString against the exact
// strings of Spark's DataFrameShowSuite (sql/core/src/test/scala/org/
// apache/spark/sql/DataFrameShowSuite.scala, Spark 4.0; DataFrameSuite in
// 3.5): truncate 0, 3, 17 and 20, vertical mode, and numRows 0 and -1.
func TestShowStringMatchesSparkSuite(t *testing.T) {
	schema, recs := displaytest.StringColumn(t, "value", "1", strings.Repeat("1", 21))
	for _, c := range []struct {
		truncate int
		vertical bool
		want     string
	}{
		{0, false, "+---------------------+\n|value                |\n+---------------------+\n|1                    |\n|111111111111111111111|\n+---------------------+\n"},
		{20, false, "+--------------------+\n|               value|\n+--------------------+\n|                   1|\n|11111111111111111...|\n+--------------------+\n"},
		{17, false, "+-----------------+\n|            value|\n+-----------------+\n|                1|\n|11111111111111...|\n+-----------------+\n"},
		{0, true, "-RECORD 0----------------------\n value | 1                     \n-RECORD 1----------------------\n value | 111111111111111111111 \n"},
		{20, true, "-RECORD 0---------------------\n value | 1                    \n-RECORD 1---------------------\n value | 11111111111111111... \n"},
		// The suite's truncate = 3 cases also cut the header to "val";
		// PySpark's documented outputs keep headers longer than 20 whole
		// (count(DISTINCT value, value)), which ShowString follows.
		{3, true, "-RECORD 0----\n value | 1   \n-RECORD 1----\n value | 111 \n"},
		{17, true, "-RECORD 0------------------\n value | 1                 \n-RECORD 1------------------\n value | 11111111111111... \n"},
	} {
		if got := ShowString(schema, recs, 10, c.truncate, c.vertical); got != c.want {
			t.Errorf("showString(10, truncate = %d, vertical = %t):\n got %q\nwant %q", c.truncate, c.vertical, got, c.want)
		}
	}

	// "SPARK-7319 showString, vertical = true" and "showString(0), vertical = true".
	kv := arrow.NewSchema([]arrow.Field{{Name: "key", Type: arrow.PrimitiveTypes.Int32}, {Name: "value", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, kv)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{1, 2}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"1", "2"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	two := []arrow.RecordBatch{rec}
	for _, c := range []struct {
		n        int
		vertical bool
		want     string
	}{
		{1, true, "-RECORD 0----\n key   | 1   \n value | 1   \nonly showing top 1 row\n"},
		{0, true, "(0 rows)\n"},
		{-1, true, "(0 rows)\n"},
		{0, false, "+---+-----+\n|key|value|\n+---+-----+\n+---+-----+\nonly showing top 0 rows\n"},
		{-1, false, "+---+-----+\n|key|value|\n+---+-----+\n+---+-----+\nonly showing top 0 rows\n"},
	} {
		if got := ShowString(kv, two, c.n, 20, c.vertical); got != c.want {
			t.Errorf("showString(%d, vertical = %t):\n got %q\nwant %q", c.n, c.vertical, got, c.want)
		}
	}
	if got := ShowString(kv, nil, 1, 20, true); got != "(0 rows)\n" {
		t.Errorf("empty, vertical: %q", got)
	}
}
