package table

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// truncateWidth is Spark's default show() truncation: cells longer than 20
// characters keep their first 17 and end in "...".
const truncateWidth = 20

// TextTable renders records as Spark's DataFrame.show(maxRows, truncate)
// prints them: a +---+ bordered grid whose columns are at least 3 wide, a
// header of the schema's field names, cells formatted as Spark formats them
// (see [NullText]; timestamps in UTC), and, when the records hold more than
// maxRows rows, the footer "only showing top N rows". With truncate, cells
// longer than 20 characters are cut to 17 plus "..." and all cells are
// right-aligned; without it nothing is cut and cells are left-aligned.
// Control characters are shown escaped (\n, \t, ...). East Asian wide
// characters count as two columns. maxRows < 0 shows every row.
//
// If schema is nil the first record's schema is used.
func TextTable(schema *arrow.Schema, records []arrow.RecordBatch, maxRows int, truncate bool) string {
	t := collectRows(schema, records, maxRows)
	header := make([]string, len(t.names))
	for i, n := range t.names {
		header[i] = escapeMetaCharacters(n)
	}
	cells := make([][]string, 0, len(t.cells))
	for _, r := range t.cells {
		out := make([]string, len(r))
		for i, c := range r {
			c = escapeMetaCharacters(c)
			if truncate {
				c = truncateCell(c, truncateWidth)
			}
			out[i] = c
		}
		cells = append(cells, out)
	}
	var sb strings.Builder
	writeGrid(&sb, header, cells, truncate)
	if t.more {
		noun := "rows"
		if maxRows == 1 {
			noun = "row"
		}
		sb.WriteString("only showing top " + strconv.Itoa(maxRows) + " " + noun + "\n")
	}
	return sb.String()
}

// ShowString renders records as Spark's Dataset.showString(numRows,
// truncate, vertical) returns them (sql/core/src/main/scala/org/apache/
// spark/sql/Dataset.scala, 3.5), the text PySpark's show() prints.
// truncate > 0 cuts cells longer than truncate characters to their first
// truncate-3 and "..." (the first truncate when truncate < 4) and, in the
// grid, right-aligns every cell; truncate <= 0 cuts nothing and
// left-aligns. vertical prints one "-RECORD i" block per row, with
// "(0 rows)" for an empty result. The footer "only showing top N rows"
// ends with a newline, as Spark's DataFrameShowSuite expects.
func ShowString(schema *arrow.Schema, records []arrow.RecordBatch, numRows, truncate int, vertical bool) string {
	return ShowStringIn(time.UTC, schema, records, numRows, truncate, vertical)
}

// ShowStringIn is ShowString with timestamps shown in loc, the session
// time zone, as Spark's show() shows them.
func ShowStringIn(loc *time.Location, schema *arrow.Schema, records []arrow.RecordBatch, numRows, truncate int, vertical bool) string {
	numRows = max(numRows, 0)
	t := collectRowsIn(schema, records, numRows, loc)
	header := make([]string, len(t.names))
	for i, n := range t.names {
		header[i] = escapeMetaCharacters(n)
	}
	cells := make([][]string, len(t.cells))
	for r, row := range t.cells {
		out := make([]string, len(row))
		for i, c := range row {
			c = escapeMetaCharacters(c)
			if truncate > 0 {
				c = truncateCell(c, truncate)
			}
			out[i] = c
		}
		cells[r] = out
	}
	var sb strings.Builder
	if vertical {
		writeVertical(&sb, header, cells)
	} else {
		writeGrid(&sb, header, cells, truncate > 0)
	}
	switch {
	case vertical && len(cells) == 0:
		sb.WriteString("(0 rows)\n")
	case t.more:
		noun := "rows"
		if numRows == 1 {
			noun = "row"
		}
		sb.WriteString("only showing top " + strconv.Itoa(numRows) + " " + noun + "\n")
	}
	return sb.String()
}

// writeGrid is showString's +---+ table: columns at least 3 wide.
func writeGrid(sb *strings.Builder, header []string, cells [][]string, rightAlign bool) {
	const minimumColWidth = 3
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = max(minimumColWidth, halfWidth(h))
	}
	for _, r := range cells {
		for i, c := range r {
			widths[i] = max(widths[i], halfWidth(c))
		}
	}
	sep := separatorLine(widths)
	sb.WriteString(sep)
	writeTextRow(sb, header, widths, rightAlign)
	sb.WriteString(sep)
	for _, r := range cells {
		writeTextRow(sb, r, widths, rightAlign)
	}
	sb.WriteString(sep)
}

// writeVertical is showString's vertical mode: per row a header
// "-RECORD i" padded with dashes to the width of both columns plus 5, then
// " name | value " lines, names and values left-aligned.
func writeVertical(sb *strings.Builder, header []string, cells [][]string) {
	const minimumColWidth = 3
	nameWidth, dataWidth := minimumColWidth, minimumColWidth
	for _, h := range header {
		nameWidth = max(nameWidth, halfWidth(h))
	}
	for _, r := range cells {
		for _, c := range r {
			dataWidth = max(dataWidth, halfWidth(c))
		}
	}
	for i, r := range cells {
		head := "-RECORD " + strconv.Itoa(i)
		sb.WriteString(head)
		sb.WriteString(strings.Repeat("-", max(0, nameWidth+dataWidth+5-len(head))))
		sb.WriteByte('\n')
		for j, c := range r {
			sb.WriteByte(' ')
			sb.WriteString(header[j])
			sb.WriteString(strings.Repeat(" ", nameWidth-halfWidth(header[j])))
			sb.WriteString(" | ")
			sb.WriteString(c)
			sb.WriteString(strings.Repeat(" ", dataWidth-halfWidth(c)))
			sb.WriteString(" \n")
		}
	}
}

func separatorLine(widths []int) string {
	var sb strings.Builder
	sb.WriteByte('+')
	for _, w := range widths {
		sb.WriteString(strings.Repeat("-", w))
		sb.WriteByte('+')
	}
	sb.WriteByte('\n')
	return sb.String()
}

func writeTextRow(sb *strings.Builder, row []string, widths []int, rightAlign bool) {
	sb.WriteByte('|')
	for i, c := range row {
		pad := strings.Repeat(" ", widths[i]-halfWidth(c))
		if rightAlign {
			sb.WriteString(pad)
			sb.WriteString(c)
		} else {
			sb.WriteString(c)
			sb.WriteString(pad)
		}
		sb.WriteByte('|')
	}
	sb.WriteByte('\n')
}

// truncateCell cuts s to width characters as Spark does: the first
// width-3 characters and "..." (just the first width when width < 4).
func truncateCell(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	if width < 4 {
		return string(r[:width])
	}
	return string(r[:width-3]) + "..."
}

// halfWidth is the number of terminal columns s takes: one per character,
// two for the full-width ranges Spark's Utils.stringHalfWidth recognises.
func halfWidth(s string) int {
	n := 0
	for _, r := range s {
		n++
		if isFullWidth(r) {
			n++
		}
	}
	return n
}

func isFullWidth(r rune) bool {
	switch {
	case r >= 0x1100 && r <= 0x115F,
		r >= 0x2E80 && r <= 0xA4CF,
		r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF,
		r >= 0xFE10 && r <= 0xFE19,
		r >= 0xFE30 && r <= 0xFE6F,
		r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6:
		return true
	}
	return false
}
