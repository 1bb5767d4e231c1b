#!/usr/bin/env bash
# install.sh sets up the Jupyter kernel "Go (Atlas)": GoNB, goimports and gopls
# built from pinned versions into $ATLAS_HOME/bin, the echarts bundle from npm
# into $ATLAS_HOME/assets/echarts, the kernel spec "atlas", and a warm build
# cache (one notebook executed through the kernel itself).
#
# Re-runnable: every step either checks first or is incremental.
#
# The kernel spec records where its tools and the echarts bundle are
# (ATLAS_ECHARTS_JS) but not ATLAS_HOME: a kernel uses the ATLAS_HOME of
# whoever starts Jupyter (default $HOME/.atlas), so tests and classes can run
# notebooks on a private home and broker port through the one installed kernel.
#
# Environment:
#   ATLAS_HOME            where binaries and assets go (default $HOME/.atlas)
#   JUPYTER_DATA_DIR      Jupyter's data dir (default: `jupyter --data-dir`);
#                         set it to install a private kernel spec (CI, tests)
#   ATLAS_WITH_CHROMIUM=1 also install Debian's chromium (the browser tests)
#   ATLAS_WARMUP=0        skip the build-cache warm-up
#   ATLAS_KERNEL_VERBOSE=1 the kernel logs all GoNB INFO lines to stderr
#   ATLAS_WARMUP_IMPORTS  space-separated packages the warm-up cell imports
#                         (default: WARMUP_IMPORTS below)
set -euo pipefail

# Packages the warm-up cell imports (blank imports, so goimports keeps them and
# the whole dependency graph is compiled and linked once through GoNB): the
# ones the notebooks import. Space-separated; keep warmup.ipynb in step.
# The notebooks import only the Spark Connect client; the engine, Kafka and
# Iceberg run in the `atlas` daemon (the Setup cells call `!atlas up`).
WARMUP_IMPORTS="github.com/atlas-lakehouse/atlas/atlas"

# Debian 12 packages providing the Jupyter client side used here.
JUPYTER_APT_PACKAGES="jupyter-core jupyter-client jupyter-notebook jupyter-nbconvert python3-nbclient python3-nbformat python3-jupyter-client python3-ipykernel jupyter-console"
SYS_PYTHON=/usr/bin/python3
SYS_JUPYTER=/usr/bin/jupyter
KERNEL_NAME=atlas

step() { printf '\n==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
die() { printf '\nERROR: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

KERNEL_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$KERNEL_DIR/.." && pwd -P)"
ATLAS_HOME="${ATLAS_HOME:-$HOME/.atlas}"
mkdir -p "$ATLAS_HOME"
ATLAS_HOME="$(cd "$ATLAS_HOME" && pwd -P)"
BIN="$ATLAS_HOME/bin"
ASSETS="$ATLAS_HOME/assets"
T_ALL="$(now)"

[[ -f "$REPO_ROOT/go.mod" ]] || die "no go.mod in $REPO_ROOT: install.sh must stay in <repo>/kernel/"
info "repo root:  $REPO_ROOT"
info "ATLAS_HOME: $ATLAS_HOME"

# --- Prerequisites -----------------------------------------------------------
step "Checking prerequisites (go, npm, Debian's Jupyter under $SYS_PYTHON)"
command -v go >/dev/null 2>&1 || die "go is not on PATH. Install Go $(sed -n 's/^go //p' "$REPO_ROOT/go.mod") (https://go.dev/dl/) into /usr/local/go and add /usr/local/go/bin to PATH."
missing_apt=()
if ! [[ -x $SYS_PYTHON ]] || ! $SYS_PYTHON -c 'import jupyter_client, nbclient, nbconvert, nbformat' >/dev/null 2>&1 || ! [[ -x $SYS_JUPYTER && -x /usr/bin/jupyter-kernelspec && -x /usr/bin/jupyter-nbconvert ]]; then
	# shellcheck disable=SC2206
	missing_apt+=($JUPYTER_APT_PACKAGES)
fi
command -v npm >/dev/null 2>&1 || missing_apt+=(npm)
if [[ "${ATLAS_WITH_CHROMIUM:-0}" == 1 ]] && ! [[ -x /usr/bin/chromium ]]; then
	missing_apt+=(chromium)
fi
if ((${#missing_apt[@]})); then
	if [[ $(id -u) -eq 0 ]]; then
		t="$(now)"
		info "installing with apt: ${missing_apt[*]}"
		apt-get update
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing_apt[@]}"
		info "apt took $(elapsed "$t")"
	else
		cat >&2 <<EOF

Missing Debian packages: ${missing_apt[*]}
Run as root, then re-run this script:

  sudo apt-get update
  sudo apt-get install -y --no-install-recommends ${missing_apt[*]}
  bash $KERNEL_DIR/install.sh
EOF
		exit 1
	fi
fi
$SYS_PYTHON -c 'import jupyter_client, nbclient, nbconvert, nbformat' || die "$SYS_PYTHON still cannot import jupyter_client/nbclient/nbconvert/nbformat"
info "go: $(go version)"
info "jupyter_client: $($SYS_PYTHON -c 'import jupyter_client; print(jupyter_client.__version__)'), nbclient: $($SYS_PYTHON -c 'import nbclient; print(nbclient.__version__)')"

# --- Tools -------------------------------------------------------------------
step "Building gonb, goimports (pinned by $REPO_ROOT/go.mod), gopls (pinned by kernel/tools/go.mod) and the atlas CLI into $BIN"
mkdir -p "$BIN"
t="$(now)"
# GOFLAGS or a go.work from the caller must not change what the pins select.
(cd "$REPO_ROOT" && GOFLAGS=-mod=readonly GOWORK=off GOTOOLCHAIN=local go build -o "$BIN/gonb" github.com/janpfeifer/gonb)
# The kernel's argv starts gonb through gonb-kernel, which drops GoNB's
# spurious start-up "Error message" line from its stderr (see the script).
install -m 0755 "$KERNEL_DIR/gonb-kernel.sh" "$BIN/gonb-kernel"
(cd "$REPO_ROOT" && GOFLAGS=-mod=readonly GOWORK=off GOTOOLCHAIN=local go build -o "$BIN/goimports" golang.org/x/tools/cmd/goimports)
# gopls lives in its own module: it needs its own golang.org/x/tools version,
# which must not be raised to the one the Atlas module selects.
(cd "$KERNEL_DIR/tools" && GOFLAGS=-mod=readonly GOWORK=off GOTOOLCHAIN=local go build -o "$BIN/gopls" golang.org/x/tools/gopls)
# The atlas CLI: a notebook's Setup cell runs `!atlas up` (the broker and the
# Spark Connect server the cells talk to) and `!atlas produce ... --if-empty`,
# so cells link only the thin client. The kernel's PATH starts with $BIN.
(cd "$REPO_ROOT" && GOFLAGS=-mod=readonly GOWORK=off GOTOOLCHAIN=local go build -o "$BIN/atlas" ./atlas/cmd/atlas)
GONB_VERSION="$(cd "$REPO_ROOT" && go list -m -f '{{.Version}}' github.com/janpfeifer/gonb)"
GONB_MODDIR="$(cd "$REPO_ROOT" && go list -m -f '{{.Dir}}' github.com/janpfeifer/gonb)"
info "gonb $GONB_VERSION, $("$BIN/gopls" version | head -1), goimports, atlas built in $(elapsed "$t")"

# --- echarts -----------------------------------------------------------------
ECHARTS_VERSION="$(tr -d '[:space:]' <"$KERNEL_DIR/echarts.version")"
ECHARTS_INTEGRITY="$(tr -d '[:space:]' <"$KERNEL_DIR/echarts.integrity")"
ECHARTS_DIR="$ASSETS/echarts"
step "Fetching echarts $ECHARTS_VERSION (npm) into $ECHARTS_DIR"
if [[ -f "$ECHARTS_DIR/dist/echarts.min.js" && "$(cat "$ECHARTS_DIR/VERSION" 2>/dev/null)" == "$ECHARTS_VERSION" ]]; then
	info "already present"
else
	t="$(now)"
	pack_dir="$(mktemp -d)"
	(cd "$pack_dir" && npm pack --silent "echarts@$ECHARTS_VERSION" >/dev/null)
	tarball="$pack_dir/echarts-$ECHARTS_VERSION.tgz"
	[[ -f "$tarball" ]] || die "npm pack echarts@$ECHARTS_VERSION produced no $tarball"
	got="sha512-$($SYS_PYTHON -c 'import base64, hashlib, sys; print(base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$tarball")"
	[[ "$got" == "$ECHARTS_INTEGRITY" ]] || die "echarts tarball integrity $got does not match kernel/echarts.integrity $ECHARTS_INTEGRITY"
	tar -xzf "$tarball" -C "$pack_dir" package/dist/echarts.min.js package/LICENSE package/NOTICE
	rm -rf "$ECHARTS_DIR.new"
	mkdir -p "$ECHARTS_DIR.new/dist"
	cp "$pack_dir/package/dist/echarts.min.js" "$ECHARTS_DIR.new/dist/"
	cp "$pack_dir/package/LICENSE" "$pack_dir/package/NOTICE" "$ECHARTS_DIR.new/"
	printf '%s\n' "$ECHARTS_VERSION" >"$ECHARTS_DIR.new/VERSION"
	rm -rf "$ECHARTS_DIR" "$pack_dir"
	mv "$ECHARTS_DIR.new" "$ECHARTS_DIR"
	info "fetched and verified in $(elapsed "$t")"
fi
info "$ECHARTS_DIR/dist/echarts.min.js ($(wc -c <"$ECHARTS_DIR/dist/echarts.min.js") bytes)"

# --- Kernel spec -------------------------------------------------------------
JUPYTER_DATA="${JUPYTER_DATA_DIR:-$($SYS_JUPYTER --data-dir)}"
SPEC_DIR="$JUPYTER_DATA/kernels/$KERNEL_NAME"
step "Installing kernel spec \"$KERNEL_NAME\" into $SPEC_DIR"
mkdir -p "$SPEC_DIR"
# GoNB v0.11.4 logs every INFO line (stack traces included) to stderr by
# default, which floods nbconvert and CI logs; and with -logtostderr=false its
# INFO writer is a nil file, so a log file stays empty. Quiet keeps errors only.
if [[ "${ATLAS_KERNEL_VERBOSE:-0}" == 1 ]]; then
	LOG_FLAGS="--logtostderr"
else
	LOG_FLAGS="--logtostderr=false --stderrthreshold=ERROR --log_file=/dev/null"
fi
GO_BIN_DIR="$(dirname "$(command -v go)")"
# Flags every cell's build gets (CELL_TAGS, CELL_GOFLAGS): see cellflags.sh,
# which cellbuild-bench.sh reads too.
# shellcheck source=kernel/cellflags.sh
. "$KERNEL_DIR/cellflags.sh"
$SYS_PYTHON - "$KERNEL_DIR/kernel.json.tmpl" "$SPEC_DIR/kernel.json" \
	"@BIN@=$BIN" "@GOBIN@=$GO_BIN_DIR" "@REPO@=$REPO_ROOT" "@ECHARTS_JS@=$ECHARTS_DIR/dist/echarts.min.js" "@GONB_VERSION@=$GONB_VERSION" "@LOG_FLAGS@=$LOG_FLAGS" "@GOFLAGS@=$CELL_GOFLAGS" "@CGO_ENABLED@=$CELL_CGO_ENABLED" <<'PY'
# Fills the kernel.json template: each value is JSON-escaped, the argv entry
# "@LOG_FLAGS@" becomes one entry per flag, and the result is checked to parse
# before it replaces the installed file.
import json, os, sys
src, dst, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
values = dict(pair.split("=", 1) for pair in pairs)
text = open(src).read()
for key, value in values.items():
    if key != "@LOG_FLAGS@":
        text = text.replace(key, json.dumps(value)[1:-1])
spec = json.loads(text)
argv = []
for arg in spec["argv"]:
    argv.extend(values["@LOG_FLAGS@"].split() if arg == "@LOG_FLAGS@" else [arg])
spec["argv"] = argv
tmp = dst + ".tmp"
with open(tmp, "w") as f:
    json.dump(spec, f, indent=2)
    f.write("\n")
os.replace(tmp, dst)
PY
if [[ -f "$GONB_MODDIR/internal/kernel/Go_gopher_favicon.svg" ]]; then
	cp "$GONB_MODDIR/internal/kernel/Go_gopher_favicon.svg" "$SPEC_DIR/logo-svg.svg"
	chmod 0644 "$SPEC_DIR/logo-svg.svg"
fi
cat "$SPEC_DIR/kernel.json"
$SYS_JUPYTER kernelspec list 2>/dev/null | grep -E "^ +$KERNEL_NAME " || die "jupyter kernelspec list does not show \"$KERNEL_NAME\""

# --- Warm-up -----------------------------------------------------------------
if [[ "${ATLAS_WARMUP:-1}" == 0 ]]; then
	step "Skipping the build-cache warm-up (ATLAS_WARMUP=0)"
else
	imports="${ATLAS_WARMUP_IMPORTS:-$WARMUP_IMPORTS}"
	step "Warming the build cache through the kernel (imports: $imports)"
	warm_dir="$ATLAS_HOME/warmup"
	rm -rf "$warm_dir"
	mkdir -p "$warm_dir"
	$SYS_PYTHON - "$KERNEL_DIR/warmup.ipynb" "$warm_dir/warmup.ipynb" $imports <<'PY'
# Rewrites the warm-up cell so it blank-imports exactly the requested packages.
import json, sys
src, dst, pkgs = sys.argv[1], sys.argv[2], sys.argv[3:]
nb = json.load(open(src))
lines = ["import (\n"] + ['\t_ "%s"\n' % p for p in pkgs] + [")\n", "\n", "%%\n", 'fmt.Println("atlas kernel warm")\n']
nb["cells"][0]["source"] = lines
json.dump(nb, open(dst, "w"), indent=1)
PY
	t="$(now)"
	# Compile the imported packages first with plain go build: the kernel's
	# builds reuse the compiled packages, and a failure here reads clearly.
	# shellcheck disable=SC2086
	(cd "$REPO_ROOT" && GOFLAGS=-mod=readonly GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=$CELL_CGO_ENABLED go build $CELL_TAGS $imports) ||
		die "go build $imports failed: the warm-up imports must compile"
	info "go build of the imports took $(elapsed "$t")"
	t="$(now)"
	# Then one cell through the kernel itself (GoNB's workspace, link and all).
	# Retried once: a cold build cache shared with gopls has failed once here
	# with "could not import crypto/sha512 (open : no such file or directory)".
	warmed=0
	for attempt in 1 2; do
		if $SYS_JUPYTER nbconvert --to notebook --execute \
			--ExecutePreprocessor.kernel_name="$KERNEL_NAME" \
			--ExecutePreprocessor.timeout=600 \
			--output-dir "$warm_dir" --output warmup.out.ipynb "$warm_dir/warmup.ipynb" \
			>"$warm_dir/nbconvert.log" 2>&1 &&
			grep -q 'atlas kernel warm' "$warm_dir/warmup.out.ipynb"; then
			warmed=1
			break
		fi
		info "warm-up attempt $attempt failed after $(elapsed "$t"); last lines of $warm_dir/nbconvert.log:"
		grep -v '^  File \|^    \|^Traceback' "$warm_dir/nbconvert.log" | tail -8 | sed 's/^/      /'
	done
	((warmed)) || die "the warm-up notebook failed twice; see $warm_dir/nbconvert.log"
	info "warm-up cell through the kernel took $(elapsed "$t")"
fi

step "Done in $(elapsed "$T_ALL"). Pick the kernel \"Go (Atlas)\" in Jupyter, or run:"
info "$SYS_JUPYTER notebook"
info "$SYS_JUPYTER console --kernel=$KERNEL_NAME"
