package lakehouse

import (
	"context"
	"strings"
	"testing"
)

// TestUnlinkedCatalogSaysWhatToImport: this package links only the SQL
// catalog, so asking for "rest" must fail with the import that fixes it.
func TestUnlinkedCatalogSaysWhatToImport(t *testing.T) {
	_, err := Open(context.Background(), Config{Type: "rest", URI: "http://127.0.0.1:1", Warehouse: "file://" + t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `import _ "github.com/atlas-lakehouse/atlas/atlas/drivers"`) {
		t.Fatalf("err = %v, want the drivers import hint", err)
	}
}

// TestUnlinkedPostgresDriverSaysWhatToImport: a postgres:// catalog URI
// needs the pgx driver, which only the drivers package links; without it
// database/sql's "unknown driver" must come with the import that fixes it.
func TestUnlinkedPostgresDriverSaysWhatToImport(t *testing.T) {
	_, err := Open(context.Background(), Config{URI: "postgres://atlas@127.0.0.1:1/atlas", Warehouse: "file://" + t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `unknown driver "pgx"`) || !strings.Contains(err.Error(), `import _ "github.com/atlas-lakehouse/atlas/atlas/drivers"`) {
		t.Fatalf("err = %v, want the unknown pgx driver and the drivers import hint", err)
	}
}
