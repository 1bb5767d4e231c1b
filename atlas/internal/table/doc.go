// Package table renders Arrow records as Spark shows them: [TextTable] and
// [ShowString] print the bordered grid of DataFrame.show() and of the
// ShowString relation, [HTMLTable] and [HTMLString] the same cell texts as
// a compact HTML table for a notebook (the HtmlString relation). Cells are
// formatted as Spark formats them (see [NullText]; timestamps in UTC,
// Java-style doubles). The server and the in-process engine render with
// it; the client asks the server (its DataFrame.Show sends ShowString or
// HtmlString), because the renderer's type switches over Arrow's array
// types would lengthen every notebook cell's link.
package table
