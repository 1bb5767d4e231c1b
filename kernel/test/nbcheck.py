"""Checks on executed notebook cells, shared by the notebook test scripts.

Standard library only, so it runs under Debian's /usr/bin/python3.
"""

import os
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


def set_constants(nb, assignments):
    """Rewrites package-level constants of a notebook before it runs.

    Each assignment is "NAME=VALUE" (VALUE is Go source, e.g. 1_000). NAME
    must be declared exactly once, as a line "const NAME = ..." in a code
    cell; that whole line becomes "const NAME = VALUE". This is how a test
    runs a variant of a notebook (say, smaller micro-batches) without a copy
    of it. Raises ValueError for a malformed assignment or a constant that is
    missing or declared more than once. Returns the indexes of the changed
    cells.
    """
    changed = set()
    for assignment in assignments or []:
        name, sep, value = assignment.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not value or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError("--set %r: want NAME=VALUE" % assignment)
        line = re.compile(r"^const %s = .*$" % re.escape(name), re.MULTILINE)
        cells = [c for c in nb.cells if c.cell_type == "code" for _ in line.finditer(c.source)]
        if len(cells) != 1:
            raise ValueError("--set %s: the notebook declares \"const %s = ...\" %d times, want once"
                             % (name, name, len(cells)))
        cells[0].source = line.sub(lambda m: "const %s = %s" % (name, value), cells[0].source)
        changed.add(next(i for i, c in enumerate(nb.cells) if c is cells[0]))
    return sorted(changed)


def notebook_client(nb, notebook_path, kernel, timeout, replies, **hooks):
    """An nbclient NotebookClient as every harness script runs one: cells run
    in the notebook's directory, errors recorded rather than raised, timings
    kept, and each cell's latest execute_reply status stored in replies
    (cell index -> status). hooks are further NotebookClient callbacks; an
    on_cell_executed hook runs after the status is stored."""
    from nbclient import NotebookClient  # Debian's python3-nbclient

    after = hooks.pop("on_cell_executed", None)

    def on_cell_executed(cell, cell_index, execute_reply):
        replies[cell_index] = execute_reply.get("content", {}).get("status")
        if after is not None:
            after(cell, cell_index, execute_reply)

    return NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=kernel,
        allow_errors=True,
        record_timing=True,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(notebook_path))}},
        on_cell_executed=on_cell_executed,
        **hooks,
    )
