package engine

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
)

// showColumn is one string column named name holding values.
func showColumn(t *testing.T, name string, values ...string) (*arrow.Schema, []arrow.RecordBatch) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues(values, nil)
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return schema, []arrow.RecordBatch{rec}
}

// TestShowTablePrintsLikeSparkShow: outside a notebook, show() prints
// showString and a newline (Dataset.show is println(showString(...)) and
// PySpark's show is print(self._show_string(...))), so an empty line
// follows the table as in a PySpark terminal.
func TestShowTablePrintsLikeSparkShow(t *testing.T) {
	schema, recs := showColumn(t, "value", "1", strings.Repeat("1", 21))
	var out strings.Builder
	showTable(view.WriterSurface{W: &out}, schema, recs, 20, true)
	want := "+--------------------+\n|               value|\n+--------------------+\n|                   1|\n|11111111111111111...|\n+--------------------+\n\n"
	if out.String() != want {
		t.Errorf("show():\n got %q\nwant %q", out.String(), want)
	}
}
