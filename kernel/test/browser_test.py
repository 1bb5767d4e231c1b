#!/usr/bin/python3
"""Checks in headless Chromium that every chart of an executed notebook drew.

Usage: browser_test.py EXECUTED.ipynb --screenshot out.png [--html out.html]
                       [--min-charts N] [--settle-ms MS]

Exports the notebook to HTML with nbconvert, adds two small scripts (one
collecting JavaScript errors, one that after load + settle-ms counts chart
containers and whether their canvases hold any non-transparent pixel, written
as JSON into <pre id="atlas-check">), loads the page in headless Chromium with
a virtual-time budget, reads the result back with --dump-dom, and takes a
screenshot that starts at the cell of the first chart.

A chart container is an element with class "atlas-chart", the attribute
data-atlas-chart, or the attribute _echarts_instance_ (set by echarts.init);
nested containers count once, by their outermost element. A container drew
when one of its canvases has a non-transparent pixel, or its SVG has shapes.

Exit 0 when at least --min-charts containers exist (default 1) and all drew,
1 otherwise, 2 when Chromium or the export failed. Installs Debian's chromium
with apt when it is missing and we are root; otherwise prints the command.

Uses Debian's /usr/bin/python3 with jupyter-nbconvert and python3-nbformat.
"""

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

import nbformat
from nbconvert import HTMLExporter

CHROMIUM = "/usr/bin/chromium"

# Flags that keep headless Chromium quiet and offline-safe on a closed network.
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--mute-audio",
]

ERROR_COLLECTOR = """<script>
window.__atlasErrors = [];
window.addEventListener("error", function (e) {
  window.__atlasErrors.push(String(e.message || e.type) + " @ " + (e.filename || "") + ":" + (e.lineno || 0));
});
</script>"""

CHECKER = """<script>
window.addEventListener("load", function () {
  setTimeout(function () {
    var report = {containers: [], canvases: 0, drawnCanvases: 0, errors: window.__atlasErrors || []};
    function canvasDrawn(c) {
      if (!c.width || !c.height) return false;
      try {
        var ctx = c.getContext("2d");
        if (!ctx) return false;
        var d = ctx.getImageData(0, 0, c.width, c.height).data;
        for (var i = 3; i < d.length; i += 4) if (d[i] !== 0) return true;
      } catch (e) { report.errors.push("getImageData: " + e); }
      return false;
    }
    var canvases = Array.prototype.slice.call(document.querySelectorAll("canvas"));
    report.canvases = canvases.length;
    report.drawnCanvases = canvases.filter(canvasDrawn).length;
    var sel = ".atlas-chart, [data-atlas-chart], [_echarts_instance_]";
    var all = Array.prototype.slice.call(document.querySelectorAll(sel));
    all.filter(function (el) { return !el.parentElement || !el.parentElement.closest(sel); })
       .forEach(function (el, i) {
      var cs = Array.prototype.slice.call(el.querySelectorAll("canvas"));
      var drawn = cs.filter(canvasDrawn).length;
      var shapes = el.querySelectorAll("svg path, svg rect, svg circle, svg line, svg polyline").length;
      var r = el.getBoundingClientRect();
      report.containers.push({index: i, id: el.id || "", canvases: cs.length, drawnCanvases: drawn,
        svgShapes: shapes, width: Math.round(r.width), height: Math.round(r.height),
        drew: drawn > 0 || shapes > 0});
    });
    // The screenshot shows the cell of the first chart at the top: the cells
    // before it are hidden (headless screenshots ignore scrolling).
    var first = document.querySelector(sel);
    var cell = first && first.closest(".jp-Cell, .cell");
    for (var prev = cell && cell.previousElementSibling; prev; prev = prev.previousElementSibling) {
      prev.style.display = "none";
    }
    var pre = document.createElement("pre");
    pre.id = "atlas-check";
    pre.style.display = "none";
    pre.textContent = JSON.stringify(report);
    document.body.appendChild(pre);
  }, %(settle_ms)d);
});
</script>"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook", help="an executed notebook (outputs included)")
    parser.add_argument("--screenshot", required=True, help="PNG file to write")
    parser.add_argument("--html", help="also keep the instrumented HTML page here")
    parser.add_argument("--min-charts", type=int, default=1, help="fail when fewer chart containers exist")
    parser.add_argument("--settle-ms", type=int, default=2000, help="wait after load before checking")
    parser.add_argument("--window", default="1280,2000", help="screenshot window size W,H")
    args = parser.parse_args(argv)

    if not ensure_chromium():
        return 2
    workdir = tempfile.mkdtemp(prefix="atlas-browser-")
    try:
        page = os.path.join(workdir, "page.html")
        try:
            export_html(args.notebook, page, args.settle_ms)
        except Exception as err:  # nbconvert raises many kinds
            print("nbconvert export of %s failed: %s" % (args.notebook, err), file=sys.stderr)
            return 2
        if args.html:
            shutil.copyfile(page, args.html)
        budget = args.settle_ms + 3000
        dom = run_chromium(workdir, ["--virtual-time-budget=%d" % budget, "--dump-dom", "file://" + page])
        if dom is None:
            return 2
        shot = run_chromium(workdir, ["--virtual-time-budget=%d" % budget, "--window-size=" + args.window,
                                      "--screenshot=" + os.path.abspath(args.screenshot), "file://" + page])
        if shot is None or not os.path.exists(args.screenshot):
            print("chromium wrote no screenshot to %s" % args.screenshot, file=sys.stderr)
            return 2
        return judge(dom, args)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def export_html(notebook, page, settle_ms):
    """Writes the notebook as HTML to page, with the error collector and the checker injected."""
    nb = nbformat.read(notebook, as_version=4)
    body, _ = HTMLExporter().from_notebook_node(nb)
    body = re.sub(r"<head>", lambda m: m.group(0) + ERROR_COLLECTOR, body, count=1)
    checker = CHECKER % {"settle_ms": settle_ms}
    end = body.rfind("</body>")  # the last one: outputs may contain the string
    body = body[:end] + checker + body[end:] if end >= 0 else body + checker
    with open(page, "w") as f:
        f.write(body)


def run_chromium(workdir, extra):
    """Runs headless Chromium with a fresh profile; returns its stdout, or None on failure."""
    profile = tempfile.mkdtemp(prefix="profile-", dir=workdir)
    cmd = [CHROMIUM] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile] + extra
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        print("chromium timed out: %s" % " ".join(cmd), file=sys.stderr)
        return None
    if done.returncode != 0:
        print("chromium exited %d: %s\n%s" % (done.returncode, " ".join(cmd), done.stderr[-3000:]), file=sys.stderr)
        return None
    return done.stdout


def judge(dom, args):
    """Prints the chart report found in the dumped DOM; returns the exit code."""
    found = re.search(r'<pre id="atlas-check"[^>]*>(.*?)</pre>', dom, re.S)
    if not found:
        print("the page never reported its charts (no <pre id=\"atlas-check\"> in the DOM): "
              "did the load event fire within the virtual-time budget?", file=sys.stderr)
        return 1
    report = json.loads(html.unescape(found.group(1)))
    containers = report["containers"]
    print("page %s: %d chart container(s), %d canvas(es) of which %d drawn; screenshot %s"
          % (args.notebook, len(containers), report["canvases"], report["drawnCanvases"], args.screenshot))
    for c in containers:
        print("  chart %d %-24s %4dx%-4d canvases %d drawn %d svg shapes %d  %s"
              % (c["index"], c["id"] or "-", c["width"], c["height"], c["canvases"],
                 c["drawnCanvases"], c["svgShapes"], "ok" if c["drew"] else "NOT DRAWN"))
    for err in report["errors"]:
        print("  js error: %s" % err)
    failed = [c for c in containers if not c["drew"]]
    if failed:
        print("FAILED: %d chart container(s) did not draw" % len(failed), file=sys.stderr)
        return 1
    if len(containers) < args.min_charts:
        print("FAILED: %d chart container(s), expected at least %d" % (len(containers), args.min_charts),
              file=sys.stderr)
        return 1
    return 0


def ensure_chromium():
    """Returns True when Chromium is installed, installing it with apt when root."""
    if os.access(CHROMIUM, os.X_OK):
        return True
    command = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
    if os.geteuid() != 0:
        print("Chromium is missing. Install it with:\n  sudo apt-get update && sudo %s" % " ".join(command),
              file=sys.stderr)
        return False
    print("installing chromium: apt-get update && %s" % " ".join(command), file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if subprocess.run(["apt-get", "update"], env=env).returncode != 0:
        return False
    return subprocess.run(command, env=env).returncode == 0 and os.access(CHROMIUM, os.X_OK)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # a broken run must not look like a failed check (exit 1)
        traceback.print_exc()
        sys.exit(2)
