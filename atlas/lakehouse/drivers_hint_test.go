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
