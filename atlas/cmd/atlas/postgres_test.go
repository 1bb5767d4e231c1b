package main

import (
	"context"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/pgtest"
)

// TestPostgresCatalogURINeedsNoCode: the stock CLI reaches a PostgreSQL
// catalog from ATLAS_CATALOG_URI alone. Without the pgx driver linked it
// failed with `sql: unknown driver "pgx" (forgotten import?)`; with it,
// an address where no server listens fails on the connection.
func TestPostgresCatalogURINeedsNoCode(t *testing.T) {
	t.Setenv(lakehouse.EnvCatalogURI, "postgres://atlas@127.0.0.1:1/atlas?connect_timeout=5")
	t.Setenv(lakehouse.EnvCatalogType, "")
	_, err := lakehouse.Open(context.Background(), lakehouse.ConfigFromEnv(t.TempDir()))
	if err == nil {
		t.Fatal("opened a PostgreSQL catalog on 127.0.0.1:1, where nothing listens")
	}
	if strings.Contains(err.Error(), "unknown driver") {
		t.Fatalf("the CLI does not link the pgx driver: %v", err)
	}
}

// TestSQLCommandThroughPostgresCatalog runs `atlas sql` statements with
// ATLAS_CATALOG_URI pointing at a real PostgreSQL (ATLAS_TEST_POSTGRES_URI)
// and checks in PostgreSQL itself that the catalog recorded the table.
func TestSQLCommandThroughPostgresCatalog(t *testing.T) {
	uri := pgtest.URI(t)
	home := t.TempDir()
	t.Setenv(lakehouse.EnvHome, home)
	t.Setenv(lakehouse.EnvCatalogURI, uri)
	t.Setenv(lakehouse.EnvCatalogType, "")
	t.Setenv(lakehouse.EnvWarehouse, "")
	for _, st := range []string{
		"CREATE NAMESPACE IF NOT EXISTS gold",
		"CREATE TABLE lakehouse.gold.cli_pg (id bigint, v string) USING iceberg",
		"INSERT INTO lakehouse.gold.cli_pg VALUES (1, 'a'), (2, 'b'), (3, 'c')",
	} {
		if err := runSQL(context.Background(), []string{"--home", home, st}); err != nil {
			t.Fatalf("atlas sql %q: %v", st, err)
		}
	}
	if !pgtest.Tables(t, uri)["gold.cli_pg"] {
		t.Fatalf("PostgreSQL's iceberg_tables lacks gold.cli_pg")
	}
	lh, err := lakehouse.Open(context.Background(), lakehouse.ConfigFromEnv(home))
	if err != nil {
		t.Fatal(err)
	}
	defer lh.Close()
	tbl, err := lh.LoadTable(context.Background(), "lakehouse.gold.cli_pg")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := tbl.ReadAll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, r := range recs {
		n += r.NumRows()
		r.Release()
	}
	if n != 3 {
		t.Fatalf("%d rows read back, inserted 3", n)
	}
}
