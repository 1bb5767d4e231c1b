package engine

import (
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
)

// TestShowTablePrintsLikeSparkShow: outside a notebook, show() prints
// showString and a newline (Dataset.show is println(showString(...)) and
// PySpark's show is print(self._show_string(...))), so an empty line
// follows the table as in a PySpark terminal.
func TestShowTablePrintsLikeSparkShow(t *testing.T) {
	schema, recs := displaytest.StringColumn(t, "value", "1", strings.Repeat("1", 21))
	var out strings.Builder
	showTable(view.WriterSurface{W: &out}, schema, recs, 20, true)
	want := "+--------------------+\n|               value|\n+--------------------+\n|                   1|\n|11111111111111111...|\n+--------------------+\n\n"
	if out.String() != want {
		t.Errorf("show():\n got %q\nwant %q", out.String(), want)
	}
}
