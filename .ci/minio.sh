# Sourced by .ci/run: a real S3 server for the S3 tests. MinIO, built from
# the Go module proxy (the only registry CI reaches that has it) at a pinned
# version, cached between runs on the same machine; started on 127.0.0.1
# and a free port with a throwaway data directory and random credentials.
# Exports ATLAS_TEST_S3_ENDPOINT, ATLAS_TEST_S3_ACCESS_KEY and
# ATLAS_TEST_S3_SECRET_KEY (the secret is never printed); stop_minio stops
# it.

MINIO_MODULE=github.com/minio/minio
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c

start_minio() {
	local t0=$SECONDS
	local bindir="${ATLAS_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/atlas-ci}/minio-$MINIO_VERSION"
	if [ ! -x "$bindir/minio" ]; then
		echo "building MinIO $MINIO_VERSION from the Go module proxy (once per machine; cached in $bindir)"
		mkdir -p "$bindir"
		GOBIN="$bindir" GOFLAGS= go install "$MINIO_MODULE@$MINIO_VERSION"
	fi
	local built=$((SECONDS - t0))
	MINIO_DIR="$(mktemp -d /tmp/atlas-ci-minio.XXXXXX)"
	local port=19000
	while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || (exec 3<>"/dev/tcp/127.0.0.1/$((port + 1))") 2>/dev/null; do
		port=$((port + 2))
	done
	export ATLAS_TEST_S3_ACCESS_KEY="atlas-ci"
	ATLAS_TEST_S3_SECRET_KEY="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
	export ATLAS_TEST_S3_SECRET_KEY
	MINIO_ROOT_USER="$ATLAS_TEST_S3_ACCESS_KEY" MINIO_ROOT_PASSWORD="$ATLAS_TEST_S3_SECRET_KEY" MINIO_BROWSER=off \
		"$bindir/minio" server --quiet --address "127.0.0.1:$port" --console-address "127.0.0.1:$((port + 1))" \
		"$MINIO_DIR/data" >"$MINIO_DIR/minio.log" 2>&1 &
	MINIO_PID=$!
	local i
	for i in $(seq 1 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			break
		fi
		if ! kill -0 "$MINIO_PID" 2>/dev/null; then
			echo "MinIO exited at start:" >&2
			cat "$MINIO_DIR/minio.log" >&2
			return 1
		fi
		sleep 0.2
	done
	export ATLAS_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
	echo "MinIO $MINIO_VERSION on $ATLAS_TEST_S3_ENDPOINT (built in ${built}s, ready in $((SECONDS - t0 - built))s)"
}

stop_minio() {
	[ -n "${MINIO_PID:-}" ] || return 0
	kill "$MINIO_PID" 2>/dev/null || true
	wait "$MINIO_PID" 2>/dev/null || true
	rm -rf "$MINIO_DIR"
	MINIO_PID=
}
