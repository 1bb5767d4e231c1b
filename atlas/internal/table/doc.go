// Package table renders Arrow records as Spark shows them: [TextTable] and
// [ShowString] print the bordered grid of DataFrame.show() and of the
// ShowString relation, [HTMLTable] the same cell texts as a compact HTML
// table for a notebook. Cells are formatted as Spark formats them (see
// [NullText]; timestamps in UTC, Java-style doubles). It has no notion of
// where the output goes: atlas/internal/view shows tables in a notebook or
// a terminal.
package table
