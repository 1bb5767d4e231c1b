// Package tablecss is the style of Atlas's HTML tables (class atlas-table):
// the tables DataFrame.show draws in a notebook (atlas/internal/table,
// rendered by the server) and the numbers table of a progress frame
// (atlas/internal/view, in the client). A package of its own so that the
// client gets the style without the table renderer.
package tablecss

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
