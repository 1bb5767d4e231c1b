#!/usr/bin/python3
"""Prints the Verify cell of an executed notebook as text.

Usage: verify_text.py EXECUTED

For each cell tagged "verify": its stdout, and every table it displayed
(Show's HTML table, class atlas-table) in Spark's show() text form, in output
order; a display with a text/plain form prints that. A cell that printed
nothing says so.

Uses Debian's /usr/bin/python3 with python3-nbformat.
"""

import sys
from html.parser import HTMLParser

import nbformat


class _Tables(HTMLParser):
    """Collects the atlas-table tables of an HTML fragment: header, rows, footer."""

    def __init__(self):
        super().__init__()
        self.tables, self._table, self._cell, self._part = [], None, None, None

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "table" and "atlas-table" in classes:
            self._table = {"header": [], "rows": [], "foot": []}
        elif self._table is None:
            return
        elif tag in ("thead", "tbody", "tfoot"):
            self._part = tag
        elif tag == "tr" and self._part == "tbody":
            self._table["rows"].append([])
        elif tag in ("th", "td"):
            self._cell = []

    def handle_endtag(self, tag):
        if self._table is None:
            return
        if tag in ("th", "td") and self._cell is not None:
            text = "".join(self._cell)
            if self._part == "thead":
                self._table["header"].append(text)
            elif self._part == "tfoot":
                self._table["foot"].append(text)
            elif self._table["rows"]:
                self._table["rows"][-1].append(text)
            self._cell = None
        elif tag == "table":
            self.tables.append(self._table)
            self._table = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def show_text(table):
    """Spark's show() layout: a ruled grid, cells right-aligned, then the footer."""
    header, rows = table["header"], table["rows"]
    widths = [len(h) for h in header]
    for row in rows:
        for i, cell in enumerate(row[: len(widths)]):
            widths[i] = max(widths[i], len(cell))
    rule = "+" + "+".join("-" * w for w in widths) + "+"
    lines = [rule, "|" + "|".join(h.rjust(w) for h, w in zip(header, widths)) + "|", rule]
    for row in rows:
        lines.append("|" + "|".join(c.rjust(w) for c, w in zip(row, widths)) + "|")
    lines.append(rule)
    lines.extend(table["foot"])
    return "\n".join(lines)


def cell_text(cell):
    """The cell's stdout and its tables as text, in output order."""
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream" and out.get("name") == "stdout":
            text = out.get("text", "")
            parts.append("".join(text) if isinstance(text, list) else text)
        elif kind in ("display_data", "execute_result"):
            data = out.get("data", {})
            html = data.get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            parser = _Tables()
            parser.feed(html)
            if parser.tables:
                parts.extend(show_text(t) + "\n" for t in parser.tables)
            elif "text/plain" in data:
                plain = data["text/plain"]
                parts.append(("".join(plain) if isinstance(plain, list) else plain) + "\n")
    return "".join(parts).strip()


def main(argv):
    nb = nbformat.read(argv[1], as_version=4)
    for cell in nb.cells:
        if "verify" in cell.get("metadata", {}).get("tags", []):
            print(cell_text(cell) or "(the Verify cell printed nothing)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
