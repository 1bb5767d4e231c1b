#!/usr/bin/python3
"""Executes a notebook on the "atlas" kernel and fails if any cell failed.

Usage: run_notebook.py NOTEBOOK --out EXECUTED [--timeout S] [--kernel NAME]
                       [--set NAME=VALUE]...

Runs every code cell with nbclient (cells run in the notebook's own
directory), writes the executed notebook to EXECUTED, prints the kernel start
time and one timing line per cell, and exits 1 listing each failing cell (an
error output, a stderr mentioning panic/error, or an error execute_reply).
Cells tagged "raises-exception" may fail. Exit 2 means the run itself broke
(kernel died, timeout, a --set that matches no constant).

--set NAME=VALUE rewrites the line "const NAME = ..." of the notebook (in
memory) before it runs, e.g. --set maxOffsetsPerTrigger=1_000.

Uses Debian's /usr/bin/python3 with python3-nbclient and python3-nbformat.
"""

import argparse
import os
import sys
import time
import traceback

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbcheck  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--out", required=True, help="where to write the executed notebook")
    parser.add_argument("--timeout", type=int, default=600, help="per-cell timeout in seconds")
    parser.add_argument("--kernel", default=nbcheck.KERNEL_NAME, help="kernel spec name")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="rewrite the notebook's `const NAME = ...` line before running (repeatable)")
    args = parser.parse_args(argv)

    nb = nbformat.read(args.notebook, as_version=4)
    nbcheck.set_constants(nb, args.set)
    timings = {}  # cell index -> [start, end]
    replies = {}  # cell index -> execute_reply status
    started = time.monotonic()
    ready = []

    def on_notebook_start(notebook):
        ready.append(time.monotonic())

    def on_cell_execute(cell, cell_index):
        timings[cell_index] = [time.monotonic(), None]

    def on_cell_executed(cell, cell_index, execute_reply):
        timings[cell_index][1] = time.monotonic()

    client = nbcheck.notebook_client(
        nb, args.notebook, args.kernel, args.timeout, replies,
        on_notebook_start=on_notebook_start,
        on_cell_execute=on_cell_execute,
        on_cell_executed=on_cell_executed,
    )
    broken = None
    try:
        client.execute()
    except (CellTimeoutError, DeadKernelError) as err:
        broken = "%s: %s" % (type(err).__name__, err)
    finally:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        nbformat.write(nb, args.out)
    total = time.monotonic() - started

    print("notebook %s (kernel %s)" % (args.notebook, args.kernel))
    if ready:
        print("  kernel ready  %7.2f s" % (ready[0] - started))
    failures = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or index not in timings:
            continue
        start, end = timings[index]
        label = nbcheck.first_line(cell.source)
        if end is None:
            print("  cell %-3d  unfinished  %s" % (index, label))
            continue
        problems = nbcheck.cell_problems(cell, replies.get(index))
        print("  cell %-3d %7.2f s  %s  %s" % (index, end - start, "FAIL" if problems else "ok  ", label))
        for problem in problems:
            failures.append((index, label, problem))
    print("  total         %7.2f s" % total)
    print("executed notebook written to %s" % args.out)

    for index, label, problem in failures:
        print("\nFAILED cell %d (%s):\n%s" % (index, label, problem), file=sys.stderr)
    if broken:
        print("\nRUN BROKEN: %s" % broken, file=sys.stderr)
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # a broken run must not look like a failing cell (exit 1)
        traceback.print_exc()
        sys.exit(2)
