#!/usr/bin/python3
"""Interrupts a running cell through the kernel and measures how long it takes to stop.

Usage: interrupt_test.py NOTEBOOK --cell-tag TAG [--wait-output S] [--max-seconds S]
                         [--set NAME=VALUE]... [--out EXECUTED]

Starts the "atlas" kernel with nbclient (in the notebook's directory), runs
every code cell before the first cell tagged TAG, starts the tagged cell,
waits until it printed or displayed something (or --wait-output seconds),
sends an interrupt (the kernel spec's interrupt_mode decides: GoNB's spec uses
an interrupt_request on the control channel), and measures the time until
the cell finished (its execute_reply and its last output).

--set NAME=VALUE rewrites the notebook's line "const NAME = ..." for the
interrupted run (in memory), e.g. smaller micro-batches so that a query is
still running when the interrupt arrives.

With --out, it then does what a user does after Kernel > Interrupt: runs the
cells changed by --set again as written (restoring the constants), then the
tagged cell and every code cell after it, in the same kernel, and writes the
executed notebook to EXECUTED. The interrupted run is kept there as a copy of
the cell, tagged "interrupted", just before the re-run.

Prints one JSON object on stdout:

  {"notebook", "cell_tag", "cell_index", "kernel_ready_s", "interrupt_mode",
   "first_output_s", "interrupt_to_reply_s", "reply_status",
   "output_before_interrupt", "output_after_interrupt",
   "rerun": [{"cell", "seconds", "problems"}], "error"}

Exit 0 when the measurement was made (within --max-seconds, if given), the
interrupted cell shows no error and every re-run cell passed; 1 when one of
those failed or no reply came in time; 2 when the set-up broke (kernel start,
an earlier cell failed, no tagged cell, the cell finished before the
interrupt).

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

# How long to wait for the cell to finish after the interrupt before giving
# up: GoNB kills the cell 5 s after SIGINT, so later than this means a hang.
REPLY_DEADLINE_S = 30.0

# Tag given to the kept copy of the interrupted cell in the executed notebook.
INTERRUPTED_TAG = "interrupted"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--cell-tag", required=True, help="tag of the cell to interrupt")
    parser.add_argument("--wait-output", type=float, default=60.0,
                        help="seconds to wait for the tagged cell's first output before interrupting")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="exit 1 if interrupt-to-reply takes longer than this")
    parser.add_argument("--kernel", default=nbcheck.KERNEL_NAME, help="kernel spec name")
    parser.add_argument("--timeout", type=int, default=600, help="per-cell timeout in seconds")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="rewrite the notebook's `const NAME = ...` line before running (repeatable)")
    parser.add_argument("--out", help="re-run the tagged cell and the rest after the interrupt; "
                                      "write the executed notebook here")
    args = parser.parse_args(argv)

    result = {"notebook": args.notebook, "cell_tag": args.cell_tag, "set": args.set, "error": None}
    code = asyncio.run(measure(args, result))
    print(json.dumps(result, indent=2))
    return code


async def measure(args, result):
    """Runs the measurement (and the re-run), filling result; returns the exit code."""
    nb = nbformat.read(args.notebook, as_version=4)
    as_written = copy.deepcopy(nb)
    changed = nbcheck.set_constants(nb, args.set)
    code_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]
    tagged = [i for i in code_cells if args.cell_tag in nbcheck.cell_tags(nb.cells[i])]
    if not tagged:
        result["error"] = "no code cell tagged %r" % args.cell_tag
        return 2
    target = tagged[0]
    result["cell_index"] = target

    replies = {}  # cell index -> status of its latest execute_reply
    client = nbcheck.notebook_client(nb, args.notebook, args.kernel, args.timeout, replies)
    started = time.monotonic()
    try:
        async with client.async_setup_kernel():
            result["kernel_ready_s"] = round(time.monotonic() - started, 3)
            result["interrupt_mode"] = client.km.kernel_spec.interrupt_mode
            await record_language_info(client, nb)

            for index in code_cells:
                if index >= target:
                    break
                cell = await run(client, nb.cells[index], index)
                problems = nbcheck.cell_problems(cell, replies.get(index))
                if problems:
                    result["error"] = "cell %d failed before the tagged cell: %s" % (index, problems[0][-2000:])
                    return 2

            original = copy.deepcopy(nb.cells[target])
            code = await interrupt(client, nb.cells[target], target, args, result, replies)
            if code != 0 or not args.out:
                return code

            interrupted = nb.cells[target]
            interrupted.metadata["tags"] = [INTERRUPTED_TAG]
            if "id" in interrupted:
                interrupted.id = uuid.uuid4().hex[:8]  # cell ids must stay unique
            original.outputs = []
            nb.cells[target] = original
            result["rerun"] = []
            for index in changed:
                if index < target:
                    nb.cells[index] = copy.deepcopy(as_written.cells[index])
            for index in code_cells:
                if index < target and index not in changed:
                    continue
                began = time.monotonic()
                cell = await run(client, nb.cells[index], index)
                problems = nbcheck.cell_problems(cell, replies.get(index))
                result["rerun"].append({"cell": index, "seconds": round(time.monotonic() - began, 3),
                                        "problems": problems})
                if problems and not result["error"]:
                    result["error"] = "re-run cell %d failed: %s" % (index, problems[0][-2000:])
            nb.cells.insert(target, interrupted)
            return 1 if result["error"] else 0
    except (CellTimeoutError, DeadKernelError) as err:
        result["error"] = "%s: %s" % (type(err).__name__, err)
        return 2
    except RuntimeError as err:  # raised when the kernel does not start
        result["error"] = "kernel: %s" % err
        return 2
    finally:
        if args.out:
            os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
            nbformat.write(nb, args.out)
            result["executed"] = args.out


async def interrupt(client, cell, index, args, result, replies):
    """Starts cell, interrupts it after its first output, records the timings; returns the exit code."""
    cell.outputs = []
    task = asyncio.ensure_future(run(client, cell, index))
    sent = time.monotonic()
    while not task.done() and not cell.outputs and time.monotonic() - sent < args.wait_output:
        await asyncio.sleep(0.02)
    result["first_output_s"] = round(time.monotonic() - sent, 3) if cell.outputs else None
    if task.done():
        task.result()  # re-raises a dead kernel or timeout
        result["error"] = "the tagged cell finished (%s) before it was interrupted" % replies.get(index)
        result["output_before_interrupt"] = tail(cell)
        return 2
    result["output_before_interrupt"] = tail(cell)

    interrupted = time.monotonic()
    await ensure_async(client.km.interrupt_kernel())
    try:
        await asyncio.wait_for(asyncio.shield(task), REPLY_DEADLINE_S)
    except asyncio.TimeoutError:
        result["error"] = "the cell did not finish within %.0f s of the interrupt" % REPLY_DEADLINE_S
        return 1
    stopped = time.monotonic() - interrupted
    result["reply_status"] = replies.get(index)
    result["interrupt_to_reply_s"] = round(stopped, 3)
    result["output_after_interrupt"] = tail(cell)
    if args.max_seconds is not None and stopped > args.max_seconds:
        result["error"] = "interrupt took %.2f s, more than %.2f s" % (stopped, args.max_seconds)
        return 1
    problems = nbcheck.cell_problems(cell, replies.get(index))
    if problems:
        result["error"] = "the interrupted cell did not stop cleanly: %s" % problems[0][-2000:]
        return 1
    return 0


async def run(client, cell, index):
    """Executes one cell with the next execution count; returns the executed cell."""
    return await client.async_execute_cell(cell, index, execution_count=client.code_cells_executed + 1)


async def record_language_info(client, nb):
    """Stores the kernel's language_info in the notebook metadata, as nbclient's execute does."""
    msg_id = await ensure_async(client.kc.kernel_info())
    reply = await client.async_wait_for_reply(msg_id)
    if reply and "language_info" in reply["content"]:
        nb.metadata["language_info"] = reply["content"]["language_info"]


def tail(cell, limit=2000):
    """Returns the last limit characters of the cell's outputs as text (an HTML display as <display_data>)."""
    parts = []
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            text = output.get("text", "")
            parts.append("".join(text) if isinstance(text, list) else text)
        elif output.get("output_type") == "error":
            parts.append("%s: %s\n" % (output.get("ename"), output.get("evalue")))
        else:
            plain = output.get("data", {}).get("text/plain")
            parts.append(("".join(plain) if isinstance(plain, list) else plain) if plain
                         else "<%s>\n" % output.get("output_type"))
    return nbcheck.strip_ansi("".join(parts))[-limit:]


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # a broken run must not look like a failed check (exit 1)
        traceback.print_exc()
        sys.exit(2)
