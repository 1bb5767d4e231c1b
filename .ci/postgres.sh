# Sourced by .ci/run: start a throwaway PostgreSQL (Debian's package) on
# 127.0.0.1 and a free port, owned by the postgres user, in a temp dir, with
# a database and a password user for the Postgres catalog tests. Exports
# ATLAS_TEST_POSTGRES_URI (never printed: it holds the password) and stops
# the server from stop_postgres. No systemd: initdb + pg_ctl.

start_postgres() {
	local t0=$SECONDS
	if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null
		apt-get install -y -qq --no-install-recommends postgresql >/dev/null
	fi
	local bin
	bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
	PG_DIR="$(mktemp -d /tmp/atlas-ci-pg.XXXXXX)"
	chown postgres: "$PG_DIR"
	local port=15432
	while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
	local pass
	pass="$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
	su postgres -s /bin/sh -c "'$bin/initdb' -D '$PG_DIR/data' --auth-local=trust --auth-host=scram-sha-256 -U postgres >'$PG_DIR/initdb.log' 2>&1"
	su postgres -s /bin/sh -c "'$bin/pg_ctl' -D '$PG_DIR/data' -l '$PG_DIR/server.log' -w -o \"-p $port -k '$PG_DIR' -c listen_addresses=127.0.0.1\" start >/dev/null"
	PG_BIN="$bin"
	su postgres -s /bin/sh -c "'$bin/psql' -qAt -h '$PG_DIR' -p $port -U postgres -v ON_ERROR_STOP=1" <<-SQL
		CREATE ROLE atlas LOGIN PASSWORD '$pass';
		CREATE DATABASE atlas OWNER atlas;
	SQL
	export ATLAS_TEST_POSTGRES_URI="postgres://atlas:$pass@127.0.0.1:$port/atlas?sslmode=disable"
	echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (database atlas, user atlas), ready in $((SECONDS - t0))s"
}

stop_postgres() {
	[ -n "${PG_DIR:-}" ] || return 0
	su postgres -s /bin/sh -c "'$PG_BIN/pg_ctl' -D '$PG_DIR/data' -m fast stop >/dev/null 2>&1" || true
	rm -rf "$PG_DIR"
	PG_DIR=
}
