#!/usr/bin/env bash
# notebook-timing.sh: the notebook timings of the README (kernel ready,
# trivial cell, an atlas cell without a server, per-cell times and Run All of
# both scenario notebooks, the Write cell's first progress frame), each
# notebook on a fresh private stack, with the load average before each run
# (the machine is shared: report ranges).
#
# Needs the kernel installed from this checkout into build/jupyter
# (make test-kernel). Usage: kernel/notebook-timing.sh [runs (default 2)]
# ATLAS_TIMING_CELLS_ONLY=1: the trivial and atlas cells only (no stack).
set -u
runs=${1:-2}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
export JUPYTER_DATA_DIR=$repo/build/jupyter
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
atlas_bin=$repo/build/kernel-home/bin/atlas
port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
fresh_stack() { # a private home and free broker and Spark Connect ports
	export ATLAS_HOME=$work/home-$1
	mkdir -p "$ATLAS_HOME"
	export ATLAS_KAFKA_ADDR=127.0.0.1:$(port) ATLAS_CONNECT_ADDR=127.0.0.1:$(port)
}
load() { cut -d' ' -f1-3 /proc/loadavg; }
for r in 1 2 3; do
	echo "== trivial $r (load $(load))"
	/usr/bin/python3 kernel/test/run_notebook.py kernel/test/fixtures/trivial.ipynb --out "$work/trivial.out.ipynb" 2>&1 | grep -E 'kernel ready|cell 1 '
done
# An atlas cell without a server: each cell imports the client and builds a
# plan (build, link and run of a client cell through GoNB; nothing dialled).
for r in 1 2 3; do
	echo "== atlas cell $r (load $(load))"
	/usr/bin/python3 kernel/test/run_notebook.py kernel/test/fixtures/atlas_cell.ipynb --out "$work/atlas_cell.out.ipynb" 2>&1 | grep -E 'cell [0-9]'
done
[[ ${ATLAS_TIMING_CELLS_ONLY:-0} == 1 ]] && exit 0
for r in $(seq 1 "$runs"); do
	for nb in streaming_windows-events cdc_streaming-online_retail; do
		fresh_stack "$nb-$r"
		echo "== $nb Run All $r (load $(load))"
		/usr/bin/python3 kernel/test/run_notebook.py "notebooks/$nb/notebook.ipynb" --out "$work/$nb-$r.out.ipynb" --timeout 300 2>&1 | grep -E 'kernel ready|cell |total|FAIL'
		"$atlas_bin" down --home "$ATLAS_HOME" >/dev/null 2>&1
		fresh_stack "$nb-int$r"
		echo "== $nb Write cell, first progress frame $r (load $(load))"
		/usr/bin/python3 kernel/test/interrupt_test.py "notebooks/$nb/notebook.ipynb" --cell-tag write-query --max-seconds 5 2>/dev/null |
			/usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); print("first_output_s", d.get("first_output_s"), "interrupt_to_reply_s", d.get("interrupt_to_reply_s"))'
		"$atlas_bin" down --home "$ATLAS_HOME" >/dev/null 2>&1
	done
done
