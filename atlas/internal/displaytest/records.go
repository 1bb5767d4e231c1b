package displaytest

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// StringColumn returns one record of one nullable string column named name
// holding values, released when the test ends.
func StringColumn(t testing.TB, name string, values ...string) (*arrow.Schema, []arrow.RecordBatch) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues(values, nil)
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return schema, []arrow.RecordBatch{rec}
}
