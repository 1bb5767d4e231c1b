package display

import (
	"strconv"
	"strings"

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
	rows := make([][]string, 0, len(t.cells)+1)
	header := make([]string, len(t.names))
	for i, n := range t.names {
		header[i] = escapeMetaCharacters(n)
	}
	rows = append(rows, header)
	for _, r := range t.cells {
		out := make([]string, len(r))
		for i, c := range r {
			c = escapeMetaCharacters(c)
			if truncate {
				c = truncateCell(c, truncateWidth)
			}
			out[i] = c
		}
		rows = append(rows, out)
	}

	const minimumColWidth = 3
	widths := make([]int, len(header))
	for i := range widths {
		widths[i] = minimumColWidth
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], halfWidth(c))
		}
	}

	var sb strings.Builder
	sep := separatorLine(widths)
	sb.WriteString(sep)
	writeTextRow(&sb, rows[0], widths, truncate)
	sb.WriteString(sep)
	for _, r := range rows[1:] {
		writeTextRow(&sb, r, widths, truncate)
	}
	sb.WriteString(sep)
	if t.more {
		noun := "rows"
		if maxRows == 1 {
			noun = "row"
		}
		sb.WriteString("only showing top " + strconv.Itoa(maxRows) + " " + noun + "\n")
	}
	return sb.String()
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
