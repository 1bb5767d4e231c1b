package table

import (
	"html"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Style is the compact style of every HTML table, scoped to the
// atlas-table class so it does not leak into the rest of the notebook.
const Style = `<style>
table.atlas-table{border-collapse:collapse;font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin:4px 0}
table.atlas-table caption{caption-side:top;text-align:left;font-weight:600;padding:2px 0;color:#333}
table.atlas-table th,table.atlas-table td{border:1px solid #d0d7de;padding:2px 6px;white-space:pre;text-align:left}
table.atlas-table th{background:#f6f8fa}
table.atlas-table td.num{text-align:right}
table.atlas-table td.null{color:#8c959f;font-style:italic}
table.atlas-table tfoot td{border:none;color:#57606a;font-style:italic}
</style>`

// HTMLTable renders records as an HTML table: the same cell texts as
// [TextTable] (see [NullText]), HTML-escaped, numbers right-aligned, nulls
// greyed, a compact scoped style, and caption above the table when it is not
// empty. When the records hold more than maxRows rows a footer says "only
// showing top N rows"; maxRows < 0 shows every row. With truncate, cells
// longer than 20 characters are cut like Spark's and the full text is kept
// in the cell's title (shown on hover). If schema is nil the first record's
// schema is used.
func HTMLTable(schema *arrow.Schema, records []arrow.RecordBatch, maxRows int, truncate bool, caption string) string {
	t := collectRows(schema, records, maxRows)
	var sb strings.Builder
	sb.WriteString(Style)
	sb.WriteString(`<table class="atlas-table">`)
	if caption != "" {
		sb.WriteString("<caption>" + html.EscapeString(caption) + "</caption>")
	}
	sb.WriteString("<thead><tr>")
	for _, n := range t.names {
		sb.WriteString("<th>" + html.EscapeString(n) + "</th>")
	}
	sb.WriteString("</tr></thead><tbody>")
	for _, row := range t.cells {
		sb.WriteString("<tr>")
		for i, c := range row {
			var class []string
			if t.numeric[i] {
				class = append(class, "num")
			}
			if c == NullText {
				class = append(class, "null")
			}
			sb.WriteString("<td")
			if len(class) > 0 {
				sb.WriteString(` class="` + strings.Join(class, " ") + `"`)
			}
			shown := c
			if truncate {
				shown = truncateCell(c, truncateWidth)
				if shown != c {
					sb.WriteString(` title="` + html.EscapeString(c) + `"`)
				}
			}
			sb.WriteString(">" + html.EscapeString(shown) + "</td>")
		}
		sb.WriteString("</tr>")
	}
	sb.WriteString("</tbody>")
	if t.more {
		noun := "rows"
		if maxRows == 1 {
			noun = "row"
		}
		sb.WriteString(`<tfoot><tr><td colspan="` + strconv.Itoa(max(len(t.names), 1)) + `">only showing top ` +
			strconv.Itoa(maxRows) + " " + noun + "</td></tr></tfoot>")
	}
	sb.WriteString("</table>")
	return sb.String()
}
