#!/usr/bin/env bash
# cellbuild-bench.sh: what one notebook cell costs to build (issue 9, item 2).
#
# Builds cell-like `main` packages the way the kernel builds a cell (`go build
# -o BIN` with the kernel's GOFLAGS and CGO_ENABLED from kernel/cellflags.sh,
# warm build cache,
# new cell code and a fresh output binary every time) and prints, per run, the
# wall time of `go build`, its CPU time (user+sys, children included: steadier
# than wall time on a shared machine), the binary's size and the linker's peak
# memory (max RSS of the `link` tool, measured by /usr/bin/time through
# -toolexec):
#   baseline  imports net/http, encoding/json and gonbui only;
#   client    imports the Atlas Connect client (package atlas);
#   client0, baseline0  the same cells built as cells were before
#             kernel/cellflags.sh (GOFLAGS='-ldflags=-s -w' only, cgo on), for
#             comparison: "baseline0 client0" is the ratio before.
# (The in-process engine, atlas/internal/engine, is internal since the layout
# swap: a cell cannot import it, so there is no engine variant any more.)
# Acceptance: client time <= 1.5 x baseline time, client binary <= 25 MB.
#
# Usage: kernel/cellbuild-bench.sh [runs (default 3)] [variants (default "baseline client")]
set -euo pipefail
runs=${1:-3}
variants=${2:-baseline client}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=kernel/cellflags.sh
. "$root/kernel/cellflags.sh"
work="$root/build/cellbench"
mkdir -p "$work"
cd "$root"

# The -toolexec wrapper records each tool's peak RSS (KB) and wall time.
cat >"$work/timetool.sh" <<'SH'
#!/bin/sh
tool=$(basename "$1")
exec /usr/bin/time -a -o "$CELLBENCH_LOG" -f "$tool %M %e" "$@"
SH
chmod +x "$work/timetool.sh"

write_cell() { # variant seq
	local dir="$work/$1"
	mkdir -p "$dir"
	case $1 in
	baseline | baseline0) cat >"$dir/main.go" <<GO
package main

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/janpfeifer/gonb/gonbui"
)

const cell = $2

func main() {
	defer gonbui.Sync()
	b, _ := json.Marshal(map[string]int{"cell": cell})
	resp, err := http.Get("http://127.0.0.1:1/" + string(b))
	fmt.Println(resp, err)
	gonbui.DisplayHTML("<b>done</b>")
}
GO
	;;
	client | client0) cat >"$dir/main.go" <<GO
package main

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas"
)

const cell = $2

func main() {
	spark := atlas.NewSession()
	df := spark.Table("lakehouse.gold.event_windows").Where(atlas.Col("count").Gt(cell)).OrderBy("window_start")
	rows, err := df.Rows(context.Background())
	fmt.Println(len(rows), err)
	_ = df.Show(5)
}
GO
	;;
	*) echo "unknown variant $1" >&2; exit 2 ;;
	esac
}

goflags() { # variant -> the GOFLAGS its cell is built with
	# -buildvcs=false: GoNB's cell module is a temporary directory outside any
	# repository, so its builds never stamp VCS information; these cells live
	# in this repository, whose git status would otherwise be read each build.
	case $1 in
	client0 | baseline0) echo "'-ldflags=-s -w' -buildvcs=false" ;;
	*) echo "$CELL_GOFLAGS -buildvcs=false" ;;
	esac
}
cgo() { # variant -> its CGO_ENABLED
	case $1 in
	client0 | baseline0) echo 1 ;;
	*) echo "$CELL_CGO_ENABLED" ;;
	esac
}

build() { # variant seq -> prints "seconds cpu_seconds bytes linkKB"
	local v=$1 out="$work/$1.bin" log="$work/$1.log" cpu="$work/$1.cpu"
	# A number no earlier run used: the cell's code is new, as a new cell's is.
	write_cell "$v" "1$2$(date +%N)"
	rm -f "$out" "$log" "$cpu"
	local t0 t1
	t0=$(date +%s.%N)
	CELLBENCH_LOG="$log" GOFLAGS="$(goflags "$v")" CGO_ENABLED="$(cgo "$v")" /usr/bin/time -o "$cpu" -f '%U %S' \
		go build -toolexec "$work/timetool.sh" -o "$out" "./build/cellbench/$v"
	t1=$(date +%s.%N)
	printf '%.2f %.2f %d %s\n' "$(echo "$t1 - $t0" | bc)" "$(awk '{print $1 + $2}' "$cpu")" "$(stat -c %s "$out")" "$(awk '$1=="link"{print $2}' "$log" | tail -1)"
}

for v in $variants; do echo "$v: GOFLAGS=$(goflags "$v") CGO_ENABLED=$(cgo "$v")"; done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "warming the build cache (the first build of each variant is not counted)"
for v in $variants; do build "$v" 0 >/dev/null; done

printf '%-9s %4s %9s %9s %9s %12s\n' variant run seconds cpu_s MB link_MB
declare -A times cpus
for r in $(seq 1 "$runs"); do
	for v in $variants; do # interleaved, so a busy moment hits every variant
		read -r secs cpu bytes kb < <(build "$v" "$r")
		times[$v]="${times[$v]:-} $secs"
		cpus[$v]="${cpus[$v]:-} $cpu"
		printf '%-9s %4d %9.2f %9.2f %9.1f %12.0f\n' "$v" "$r" "$secs" "$cpu" "$(echo "$bytes/1048576" | bc -l)" "$(echo "$kb/1024" | bc -l)"
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for v in $variants; do
	printf '%-9s median %.2f s, min %.2f s; CPU median %.2f s\n' "$v" "$(echo "${times[$v]}" | median)" \
		"$(echo "${times[$v]}" | tr ' ' '\n' | grep . | sort -g | head -1)" "$(echo "${cpus[$v]}" | median)"
done
for pair in "client baseline" "client0 baseline0"; do
	read -r c b <<<"$pair"
	if [[ -n ${times[$b]:-} && -n ${times[$c]:-} ]]; then
		printf '%s/%s build time (medians): %.2f (acceptance: <= 1.5); CPU time: %.2f\n' "$c" "$b" \
			"$(echo "$(echo "${times[$c]}" | median) / $(echo "${times[$b]}" | median)" | bc -l)" \
			"$(echo "$(echo "${cpus[$c]}" | median) / $(echo "${cpus[$b]}" | median)" | bc -l)"
	fi
done
