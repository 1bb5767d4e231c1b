#!/usr/bin/env bash
# demo_notebooks.sh executes every scenario notebook headless through the
# installed "atlas" kernel, on the caller's stack (ATLAS_HOME,
# ATLAS_KAFKA_ADDR: the Setup cells start the broker and produce data when a
# topic is empty), writes the executed copies where git ignores them, and
# prints each Verify cell's text output (its stdout, and its tables as
# Spark's show() prints them: kernel/test/verify_text.py).
#
# Usage: bash kernel/test/demo_notebooks.sh [OUT_DIR]   (default build/notebooks)
#   executed copies: OUT_DIR/<notebook dir>/notebook.out.ipynb
# Needs the kernel (make kernel). Exits 1 if a notebook failed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
OUT="${1:-$REPO/build/notebooks}"
PY=/usr/bin/python3

if ! $PY -c 'from jupyter_client.kernelspec import KernelSpecManager; KernelSpecManager().get_kernel_spec("atlas")' 2>/dev/null; then
	echo "demo_notebooks: the Jupyter kernel \"atlas\" is not installed: run make kernel (bash kernel/install.sh) first" >&2
	exit 1
fi

failed=0
for nb in "$REPO"/notebooks/*/notebook.ipynb; do
	name="$(basename "$(dirname "$nb")")"
	out="$OUT/$name/notebook.out.ipynb"
	mkdir -p "$(dirname "$out")"
	printf '\n== notebook %s\n' "${nb#"$REPO"/}"
	if ! $PY "$HERE/run_notebook.py" "$nb" --out "$out"; then
		failed=1
	fi
	printf '\n-- Verify (%s)\n' "${out#"$REPO"/}"
	$PY "$HERE/verify_text.py" "$out"
done
exit "$failed"
