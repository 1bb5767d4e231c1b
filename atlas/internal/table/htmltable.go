package table

import (
	"html"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/tablecss"
)

// HTMLTable renders records as an HTML table: the same cell texts as
// [TextTable] (see [NullText]), HTML-escaped, numbers right-aligned, nulls
// greyed, a compact scoped style, and caption above the table when it is not
// empty. When the records hold more than maxRows rows a footer says "only
// showing top N rows"; maxRows < 0 shows every row. With truncate, cells
// longer than 20 characters are cut like Spark's and the full text is kept
// in the cell's title (shown on hover). If schema is nil the first record's
// schema is used.
func HTMLTable(schema *arrow.Schema, records []arrow.RecordBatch, maxRows int, truncate bool, caption string) string {
	width := 0
	if truncate {
		width = truncateWidth
	}
	return htmlTable(schema, records, maxRows, width, caption, time.UTC)
}

// HTMLString is the table of Spark Connect's HtmlString relation (Spark's
// Dataset.htmlString(numRows, truncate), the HTML a notebook shows for a
// DataFrame): [HTMLTable] of the first numRows rows (at least 0), with
// cells longer than truncate characters cut when truncate > 0.
func HTMLString(schema *arrow.Schema, records []arrow.RecordBatch, numRows, truncate int) string {
	return HTMLStringIn(time.UTC, schema, records, numRows, truncate)
}

// HTMLStringIn is HTMLString with timestamps shown in loc, the session
// time zone.
func HTMLStringIn(loc *time.Location, schema *arrow.Schema, records []arrow.RecordBatch, numRows, truncate int) string {
	return htmlTable(schema, records, max(numRows, 0), max(truncate, 0), "", loc)
}

// htmlTable is HTMLTable cutting cells at width characters (0: never).
func htmlTable(schema *arrow.Schema, records []arrow.RecordBatch, maxRows, width int, caption string, loc *time.Location) string {
	t := collectRowsIn(schema, records, maxRows, loc)
	var sb strings.Builder
	sb.WriteString(tablecss.Style)
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
			if width > 0 {
				shown = truncateCell(c, width)
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
