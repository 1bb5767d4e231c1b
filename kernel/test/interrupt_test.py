#!/usr/bin/python3
"""Measures how long a running cell takes to stop after a kernel interrupt.

Usage: interrupt_test.py NOTEBOOK --cell-tag TAG [--wait-output S] [--max-seconds S]

Starts the "atlas" kernel with jupyter_client (in the notebook's directory),
runs every code cell before the first cell tagged TAG, starts the tagged cell,
waits until it printed or displayed something (or --wait-output seconds),
sends an interrupt (the kernel spec's interrupt_mode decides: GoNB's spec uses
an interrupt_request on the control channel), and measures the time until the
cell's execute_reply arrives. Prints one JSON object on stdout:

  {"notebook", "cell_index", "kernel_ready_s", "first_output_s",
   "interrupt_to_reply_s", "reply_status", "output_before_interrupt",
   "output_after_interrupt", "error"}

Exit 0 when the measurement was made (and, with --max-seconds, was within it),
1 when --max-seconds was exceeded or no reply came in time, 2 when the set-up
broke (kernel start, an earlier cell failed, no tagged cell).

Uses Debian's /usr/bin/python3 with python3-jupyter-client and python3-nbformat.
"""

import argparse
import json
import os
import queue
import sys
import time
import traceback

import nbformat
from jupyter_client.manager import KernelManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbcheck  # noqa: E402

# How long to wait for the reply after the interrupt before giving up: GoNB
# kills the cell 5 s after SIGINT, so a reply later than this means a hang.
REPLY_DEADLINE_S = 30.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--cell-tag", required=True, help="tag of the cell to interrupt")
    parser.add_argument("--wait-output", type=float, default=60.0,
                        help="seconds to wait for the tagged cell's first output before interrupting")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="exit 1 if interrupt-to-reply takes longer than this")
    parser.add_argument("--kernel", default=nbcheck.KERNEL_NAME, help="kernel spec name")
    parser.add_argument("--timeout", type=float, default=600.0, help="per-cell timeout for the earlier cells")
    args = parser.parse_args(argv)

    result = {"notebook": args.notebook, "cell_tag": args.cell_tag, "error": None}
    code = measure(args, result)
    print(json.dumps(result, indent=2))
    return code


def measure(args, result):
    """Runs the measurement, filling result; returns the exit code."""
    nb = nbformat.read(args.notebook, as_version=4)
    code_cells = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    tagged = [i for i, c in code_cells if args.cell_tag in nbcheck.cell_tags(c)]
    if not tagged:
        result["error"] = "no code cell tagged %r" % args.cell_tag
        return 2
    target = tagged[0]
    result["cell_index"] = target

    km = KernelManager(kernel_name=args.kernel)
    started = time.monotonic()
    km.start_kernel(cwd=os.path.dirname(os.path.abspath(args.notebook)))
    kc = km.client()
    try:
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        result["kernel_ready_s"] = round(time.monotonic() - started, 3)
        result["interrupt_mode"] = km.kernel_spec.interrupt_mode

        for index, cell in code_cells:
            if index >= target:
                break
            if not cell.source.strip():
                continue
            reply, outputs = run_cell(kc, cell.source, args.timeout)
            if reply != "ok":
                result["error"] = "cell %d failed before the tagged cell (%s): %s" % (
                    index, reply, "".join(outputs)[-2000:])
                return 2

        msg_id = kc.execute(nb.cells[target].source, stop_on_error=False)
        sent = time.monotonic()
        before, after = [], []
        reply = None
        # Wait for the first output of the tagged cell.
        while time.monotonic() - sent < args.wait_output and reply is None:
            reply = poll_reply(kc, msg_id, 0.05)
            if drain_iopub(kc, msg_id, before) and before:
                break
        result["first_output_s"] = round(time.monotonic() - sent, 3) if before else None
        if reply is not None:
            result["error"] = "the tagged cell finished (%s) before it was interrupted" % reply
            result["output_before_interrupt"] = tail(before)
            return 2

        interrupted = time.monotonic()
        km.interrupt_kernel()
        while reply is None and time.monotonic() - interrupted < REPLY_DEADLINE_S:
            drain_iopub(kc, msg_id, after)
            reply = poll_reply(kc, msg_id, 0.02)
        replied = time.monotonic()
        # Collect what the cell printed while stopping (idle status follows the reply).
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and not drain_iopub(kc, msg_id, after, idle_ends=True):
            time.sleep(0.02)

        result["reply_status"] = reply
        result["interrupt_to_reply_s"] = round(replied - interrupted, 3) if reply else None
        result["output_before_interrupt"] = tail(before)
        result["output_after_interrupt"] = tail(after)
        if reply is None:
            result["error"] = "no execute_reply within %.0f s of the interrupt" % REPLY_DEADLINE_S
            return 1
        if args.max_seconds is not None and replied - interrupted > args.max_seconds:
            result["error"] = "interrupt took %.2f s, more than %.2f s" % (replied - interrupted, args.max_seconds)
            return 1
        return 0
    except RuntimeError as err:  # wait_for_ready raises RuntimeError when the kernel dies
        result["error"] = "kernel: %s" % err
        return 2
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)


def run_cell(kc, source, timeout):
    """Executes source and waits for its reply; returns (status, output texts)."""
    msg_id = kc.execute(source, stop_on_error=False)
    outputs = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        drain_iopub(kc, msg_id, outputs)
        status = poll_reply(kc, msg_id, 0.05)
        if status is not None:
            drain_iopub(kc, msg_id, outputs)
            return status, outputs
    return "timeout", outputs


def poll_reply(kc, msg_id, timeout):
    """Returns the status of msg_id's execute_reply if it arrives within timeout, else None."""
    try:
        msg = kc.get_shell_msg(timeout=timeout)
    except queue.Empty:
        return None
    if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "execute_reply":
        return msg["content"].get("status")
    return None


def drain_iopub(kc, msg_id, sink, idle_ends=False):
    """Appends the text of msg_id's pending iopub outputs to sink.

    Returns True when something was appended, or, with idle_ends, when the
    kernel reported idle for msg_id.
    """
    got = False
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=0)
        except queue.Empty:
            return got
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            sink.append(content.get("text", ""))
            got = True
        elif kind in ("display_data", "update_display_data", "execute_result"):
            sink.append(content.get("data", {}).get("text/plain") or "<%s>\n" % kind)
            got = True
        elif kind == "error":
            sink.append("%s: %s\n" % (content.get("ename"), content.get("evalue")))
            got = True
        elif kind == "status" and content.get("execution_state") == "idle" and idle_ends:
            return True


def tail(parts, limit=600):
    """Returns the last limit characters of the joined output parts."""
    text = nbcheck.strip_ansi("".join(parts))
    return text[-limit:]


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # a broken run must not look like a failed check (exit 1)
        traceback.print_exc()
        sys.exit(2)
