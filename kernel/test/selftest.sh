#!/usr/bin/env bash
# selftest.sh proves the notebook harness on its fixtures before real notebooks
# rely on it: good notebooks pass, the broken one fails for the right cells,
# an interrupt stops a running cell, charts are seen drawn (and a blank one is
# caught). Needs the "atlas" kernel (bash kernel/install.sh) and Chromium.
#
# Usage: bash kernel/test/selftest.sh [OUT_DIR]   (executed notebooks, screenshots)
# Ends with the line "N passed, M failed"; exits 1 if any check failed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
FIX="$HERE/fixtures"
OUT="${1:-$(mktemp -d -t atlas-kernel-selftest.XXXXXX)}"
mkdir -p "$OUT"
PY=/usr/bin/python3
passed=0
failed=0

# expect NAME WANT_RC CMD...: runs CMD, logs to $OUT/NAME.log, and checks its exit code.
expect() {
	local name="$1" want="$2" rc=0
	shift 2
	"$@" >"$OUT/$name.log" 2>&1 || rc=$?
	if [[ $rc == "$want" ]]; then
		passed=$((passed + 1))
		printf 'ok    %-28s (exit %s)\n' "$name" "$rc"
	else
		failed=$((failed + 1))
		printf 'FAIL  %-28s exit %s, want %s; log %s\n' "$name" "$rc" "$want" "$OUT/$name.log"
		sed 's/^/      /' "$OUT/$name.log" | tail -20
	fi
}

# contains NAME PATTERN: checks that NAME's log matches the extended regex PATTERN.
contains() {
	if grep -Eq -- "$2" "$OUT/$1.log"; then
		passed=$((passed + 1))
		printf 'ok    %-28s has /%s/\n' "$1" "$2"
	else
		failed=$((failed + 1))
		printf 'FAIL  %-28s lacks /%s/; log %s\n' "$1" "$2" "$OUT/$1.log"
	fi
}

expect run-trivial 0 $PY "$HERE/run_notebook.py" "$FIX/trivial.ipynb" --out "$OUT/trivial.out.ipynb" --timeout 600
contains run-trivial 'kernel ready'
expect run-echarts 0 $PY "$HERE/run_notebook.py" "$FIX/echarts.ipynb" --out "$OUT/echarts.out.ipynb" --timeout 600
expect run-broken 1 $PY "$HERE/run_notebook.py" "$FIX/broken.ipynb" --out "$OUT/broken.out.ipynb" --timeout 600
contains run-broken 'FAILED cell 1 .*'
contains run-broken 'undefined: undefinedName'
contains run-broken 'FAILED cell 2 .*'
contains run-broken 'fixture panic'

expect interrupt 0 $PY "$HERE/interrupt_test.py" "$FIX/interrupt.ipynb" --cell-tag write --max-seconds 5 --set batches=600
contains interrupt '"reply_status": "ok"'
contains interrupt 'stopped cleanly after [0-9]+ batches'
# The re-run after the interrupt restores the constant (5 batches) and runs the rest.
expect interrupt-rerun 0 $PY "$HERE/interrupt_test.py" "$FIX/interrupt.ipynb" --cell-tag write --max-seconds 5 \
	--set batches=600 --out "$OUT/interrupt.out.ipynb"
expect interrupt-rerun-out 0 grep -c 'ran all 5 batches' "$OUT/interrupt.out.ipynb"
expect interrupt-kept 0 grep -c '"interrupted"' "$OUT/interrupt.out.ipynb"
expect set-missing 2 $PY "$HERE/run_notebook.py" "$FIX/trivial.ipynb" --out "$OUT/set-missing.out.ipynb" --set noSuchConstant=1
contains set-missing 'declares "const noSuchConstant = ..." 0 times'

expect browser-trivial 0 $PY "$HERE/browser_test.py" "$OUT/trivial.out.ipynb" --screenshot "$OUT/trivial.png"
expect browser-echarts 0 $PY "$HERE/browser_test.py" "$OUT/echarts.out.ipynb" --screenshot "$OUT/echarts.png"
contains browser-echarts 'chart 0 chart-[0-9a-f]+ .* ok$'
expect browser-broken 1 $PY "$HERE/browser_test.py" "$OUT/broken.out.ipynb" --screenshot "$OUT/broken.png"
contains browser-broken 'NOT DRAWN'

echo "outputs in $OUT"
echo "kernel-harness: $passed passed, $failed failed"
((failed == 0))
