package display

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ShowTable displays records the way the environment wants them (see
// [InNotebook]): in a GoNB notebook as [HTMLTable] through gonbui, elsewhere
// as [TextTable] printed to stdout followed by a newline, as Spark's show()
// prints its showString with println. maxRows and truncate
// mean what they mean for [TextTable]. In a notebook it waits until GoNB
// has the output (gonbui.Sync), so a cell may end right after it.
func ShowTable(schema *arrow.Schema, records []arrow.RecordBatch, maxRows int, truncate bool) {
	showTable(detectSurface(), schema, records, maxRows, truncate)
}

func showTable(s surface, schema *arrow.Schema, records []arrow.RecordBatch, maxRows int, truncate bool) {
	if s.html() {
		s.displayHTML(HTMLTable(schema, records, maxRows, truncate, ""))
		s.sync()
		return
	}
	// Spark's show() is println(showString(...)): the table, then an
	// empty line.
	fmt.Fprintln(s.text(), TextTable(schema, records, maxRows, truncate))
}
