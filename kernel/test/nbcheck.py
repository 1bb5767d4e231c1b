"""Checks on executed notebook cells, shared by the notebook test scripts.

Standard library only, so it runs under Debian's /usr/bin/python3.
"""

import re

# Kernel spec name installed by kernel/install.sh.
KERNEL_NAME = "atlas"

# Cells tagged with this (nbclient's own convention) may fail on purpose.
ALLOW_ERRORS_TAG = "raises-exception"

# What makes a cell's stderr count as a failure: a panic, an error, or GoNB
# rejecting a line that starts with % (it takes any such line, even inside a Go
# string, for a special command, drops it, and still runs the cell).
_STDERR_FAILURE = re.compile(r"panic|error|unknown or not implemented", re.IGNORECASE)


def cell_tags(cell):
    """Returns the cell's metadata tags as a list (empty when it has none)."""
    return list(cell.get("metadata", {}).get("tags", []))


def cell_problems(cell, reply_status=None):
    """Returns human-readable problems found in one executed code cell.

    A problem is an "error" output, a stderr stream that mentions panic,
    error or an unknown GoNB special command, or an execute_reply whose status is not "ok" (GoNB reports a
    compile error as an HTML display plus an error reply). Cells tagged
    "raises-exception" have no problems by definition.
    """
    if ALLOW_ERRORS_TAG in cell_tags(cell):
        return []
    problems = []
    stderr = []
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "error":
            trace = "\n".join(output.get("traceback", []))
            problems.append(
                "error output %s: %s\n%s"
                % (output.get("ename", ""), output.get("evalue", ""), strip_ansi(trace))
            )
        elif kind == "stream" and output.get("name") == "stderr":
            text = output.get("text", "")
            stderr.append("".join(text) if isinstance(text, list) else text)
    stderr_text = strip_ansi("".join(stderr)).strip()
    if _STDERR_FAILURE.search(stderr_text):
        problems.insert(0, "stderr:\n" + stderr_text)
    if reply_status is not None and reply_status != "ok" and not problems:
        problems.append("execute_reply status %r; outputs:\n%s" % (reply_status, outputs_text(cell)))
    return problems


def outputs_text(cell, limit=2000):
    """Returns the cell's outputs flattened to text (HTML and tracebacks included), cut to limit."""
    parts = []
    for output in cell.get("outputs", []):
        if "text" in output:
            text = output["text"]
            parts.append("".join(text) if isinstance(text, list) else text)
        for mime in ("text/plain", "text/html"):
            data = output.get("data", {}).get(mime)
            if data:
                parts.append("".join(data) if isinstance(data, list) else data)
        if output.get("traceback"):
            parts.append("\n".join(output["traceback"]))
    text = strip_ansi("\n".join(parts))
    return text if len(text) <= limit else text[:limit] + "\n... (cut)"


def strip_ansi(text):
    """Removes terminal colour escapes from text."""
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)


def first_line(source, width=60):
    """Returns the first line of a cell's Go code (not blank, a %/! command or a comment), cut to width."""
    if isinstance(source, list):
        source = "".join(source)
    for line in source.splitlines():
        line = line.strip()
        if line and not line.startswith(("%", "//", "!")):
            return line[:width]
    return ""
