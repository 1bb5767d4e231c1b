#!/usr/bin/python3
"""Runs a notebook in steps, with kernel restarts and injected cells between them.

Usage: durable_test.py NOTEBOOK --out EXECUTED [--set NAME=VALUE]...
                       --step STEP [--step STEP]...

A test of a query that must outlive its cell and its kernel: the steps run,
in order, in one kernel that --step restart restarts (Jupyter's Kernel >
Restart: a new kernel process, every declaration gone, the same kernel id).

  before:TAG     run every code cell before the first cell tagged TAG
  cell:TAG       run the cell tagged TAG
  from:TAG       run the cell tagged TAG and every code cell after it
  restart        restart the kernel
  code:NAME:SRC  run SRC (Go, a %% cell, or ! lines) as a new cell tagged NAME

--set NAME=VALUE rewrites the notebook's line "const NAME = ..." first (as
run_notebook.py does). The executed notebook (--out) holds every executed
cell in the order run, each a copy, a cell run twice twice.

Prints one JSON object: {"steps": [{"step", "cells", "seconds"}], "error"}.
Exit 0 when every step ran and no cell failed (nbcheck.cell_problems),
1 when a cell failed, 2 when the run itself broke.

Uses Debian's /usr/bin/python3 with python3-nbclient and python3-nbformat.
"""

import argparse
import asyncio
import copy
import json
import os
import sys
import time
import traceback
import uuid

import nbformat
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbcheck  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--out", required=True, help="where to write the executed cells")
    parser.add_argument("--kernel", default=nbcheck.KERNEL_NAME, help="kernel spec name")
    parser.add_argument("--timeout", type=int, default=600, help="per-cell timeout in seconds")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="rewrite the notebook's `const NAME = ...` line before running (repeatable)")
    parser.add_argument("--step", action="append", default=[], required=True, help="a step (see above)")
    args = parser.parse_args(argv)
    result = {"notebook": args.notebook, "steps": [], "error": None}
    code = asyncio.run(run_steps(args, result))
    print(json.dumps(result, indent=2))
    return code


def code_cells(nb, source_cells):
    """Indexes of the notebook's own non-empty code cells (the first source_cells; injected ones come after)."""
    return [i for i, c in enumerate(nb.cells[:source_cells]) if c.cell_type == "code" and c.source.strip()]


def tagged(nb, tag, source_cells):
    """Index of the notebook's first code cell tagged tag."""
    for i in code_cells(nb, source_cells):
        if tag in nbcheck.cell_tags(nb.cells[i]):
            return i
    raise ValueError("no code cell tagged %r" % tag)


def cells_of(nb, step, source_cells):
    """The notebook's cell indexes a step runs, or None for other steps."""
    kind, _, tag = step.partition(":")
    if kind == "before":
        target = tagged(nb, tag, source_cells)
        return [i for i in code_cells(nb, source_cells) if i < target]
    if kind == "cell":
        return [tagged(nb, tag, source_cells)]
    if kind == "from":
        target = tagged(nb, tag, source_cells)
        return [i for i in code_cells(nb, source_cells) if i >= target]
    return None


async def run_steps(args, result):
    nb = nbformat.read(args.notebook, as_version=4)
    nbcheck.set_constants(nb, args.set)
    source_cells = len(nb.cells)
    executed = []  # copies of the executed cells, in order
    replies = {}
    client = nbcheck.notebook_client(nb, args.notebook, args.kernel, args.timeout, replies)
    try:
        async with client.async_setup_kernel():
            for step in args.step:
                began = time.monotonic()
                record = {"step": step.split(":", 2)[0] if step.startswith("code:") else step, "cells": []}
                result["steps"].append(record)
                if step == "restart":
                    await ensure_async(client.km.restart_kernel(now=True))
                    await wait_ready(client)
                    record["seconds"] = round(time.monotonic() - began, 3)
                    continue
                indexes = cells_of(nb, step, source_cells)
                if indexes is None:
                    kind, _, rest = step.partition(":")
                    name, _, src = rest.partition(":")
                    if kind != "code" or not name or not src:
                        result["error"] = "unknown step %r" % step
                        return 2
                    record["step"] = "code:" + name
                    cell = nbformat.v4.new_code_cell(src, metadata={"tags": [name]})
                    nb.cells.append(cell)
                    indexes = [len(nb.cells) - 1]
                for index in indexes:
                    nb.cells[index].outputs = []
                    cell = await client.async_execute_cell(nb.cells[index], index,
                                                           execution_count=client.code_cells_executed + 1)
                    done = copy.deepcopy(cell)
                    if "id" in done:
                        done.id = uuid.uuid4().hex[:8]
                    executed.append(done)
                    record["cells"].append(index)
                    problems = nbcheck.cell_problems(cell, replies.get(index))
                    if problems:
                        result["error"] = "step %s, cell %d failed: %s" % (record["step"], index, problems[0][-2000:])
                        return 1
                record["seconds"] = round(time.monotonic() - began, 3)
        return 0
    except (CellTimeoutError, DeadKernelError, RuntimeError, ValueError) as err:
        result["error"] = "%s: %s" % (type(err).__name__, err)
        return 2
    finally:
        del nb.cells[source_cells:]
        nb.cells = executed
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        nbformat.write(nb, args.out)
        result["executed"] = args.out


async def wait_ready(client, timeout=60.0):
    """Waits until the restarted kernel answers kernel_info."""
    deadline = time.monotonic() + timeout
    while True:
        msg_id = client.kc.kernel_info()
        try:
            reply = await asyncio.wait_for(client.async_wait_for_reply(msg_id), 10)
            if reply:
                return
        except asyncio.TimeoutError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("the restarted kernel did not answer within %.0f s" % timeout)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # a broken run must not look like a failed cell (exit 1)
        traceback.print_exc()
        sys.exit(2)
