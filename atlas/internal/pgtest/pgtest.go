// Package pgtest gives tests a PostgreSQL catalog of their own on the
// server named by ATLAS_TEST_POSTGRES_URI (CI starts one from Debian's
// package, see .ci/postgres.sh): a fresh schema per test, dropped when the
// test ends, so tests sharing one database never see each other's tables.
// It talks to the server with pgx's own API, not database/sql, so that it
// does not register the "pgx" driver: a test binary using it still proves
// that the code under test links that driver itself.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURI names the DSN of the test server: postgres://user:pass@127.0.0.1:port/db.
const EnvURI = "ATLAS_TEST_POSTGRES_URI"

// URI returns a DSN for a fresh schema on the test server (its search_path
// set to that schema). Without ATLAS_TEST_POSTGRES_URI the test is skipped,
// except under CI=true, where a missing server fails the test: CI must run
// it. The DSN holds a password: never print it.
func URI(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURI)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set under CI=true: .ci/run starts PostgreSQL and must export it", EnvURI)
		}
		t.Skipf("%s not set: no PostgreSQL to test against (.ci/postgres.sh starts one)", EnvURI)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL (value not shown: it holds a password)", EnvURI)
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "atlas_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := exec(ctx, base, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema %s on the test PostgreSQL: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := exec(ctx, base, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Tables counts the Iceberg tables the SQL catalog at uri (a DSN from URI)
// records: read straight from its iceberg_tables table, independently of
// iceberg-go.
func Tables(t testing.TB, uri string) map[string]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, uri)
	if err != nil {
		t.Fatalf("connect to the test PostgreSQL: %v", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT table_namespace, table_name FROM iceberg_tables")
	if err != nil {
		t.Fatalf("list iceberg_tables: %v", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var ns, name string
		if err := rows.Scan(&ns, &name); err != nil {
			t.Fatalf("list iceberg_tables: %v", err)
		}
		out[fmt.Sprintf("%s.%s", ns, name)] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("list iceberg_tables: %v", err)
	}
	return out
}

// exec runs one statement on a connection of its own.
func exec(ctx context.Context, uri, stmt string) error {
	conn, err := pgx.Connect(ctx, uri)
	if err != nil {
		return fmt.Errorf("connect to the test PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	return nil
}
