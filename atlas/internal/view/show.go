package view

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/table"
)

// ShowTable displays records the way the environment wants them (see
// [InNotebook]): in a GoNB notebook as table.HTMLTable through gonbui,
// elsewhere as table.TextTable printed to stdout followed by a newline, as Spark's show()
// prints its showString with println. maxRows and truncate
// mean what they mean for table.TextTable. In a notebook it waits until GoNB
// has the output (gonbui.Sync), so a cell may end right after it.
func ShowTable(schema *arrow.Schema, records []arrow.RecordBatch, maxRows int, truncate bool) {
	showTable(DetectSurface(), schema, records, maxRows, truncate)
}

func showTable(s Surface, schema *arrow.Schema, records []arrow.RecordBatch, maxRows int, truncate bool) {
	if s.HTML() {
		s.DisplayHTML(table.HTMLTable(schema, records, maxRows, truncate, ""))
		s.Sync()
		return
	}
	// Spark's show() is println(showString(...)): the table, then an
	// empty line.
	fmt.Fprintln(s.Text(), table.TextTable(schema, records, maxRows, truncate))
}
