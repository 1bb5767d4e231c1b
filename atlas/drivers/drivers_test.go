package drivers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	_ "github.com/atlas-lakehouse/atlas/atlas/drivers"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// TestRESTCatalogByConfiguration points the lakehouse at a REST catalog
// by configuration alone (what ATLAS_CATALOG_TYPE=rest and
// ATLAS_CATALOG_URI do) and checks that the catalog calls reach the server:
// a loopback stand-in for the Iceberg REST protocol's config and
// namespace endpoints.
func TestRESTCatalogByConfiguration(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/config":
			json.NewEncoder(w).Encode(map[string]any{"defaults": map[string]string{}, "overrides": map[string]string{}})
		case "/v1/namespaces":
			json.NewEncoder(w).Encode(map[string]any{"namespaces": [][]string{{"bronze"}, {"gold"}, {"silver"}}})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	t.Setenv(lakehouse.EnvCatalogType, "rest")
	t.Setenv(lakehouse.EnvCatalogURI, srv.URL)
	t.Setenv(lakehouse.EnvWarehouse, "s3://warehouse/atlas")
	lh, err := lakehouse.Open(context.Background(), lakehouse.ConfigFromEnv(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer lh.Close()
	got, err := lh.ListNamespaces(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"bronze", "gold", "silver"}; !slices.Equal(got, want) {
		t.Fatalf("namespaces %v, want %v", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(paths, "GET /v1/config") || !slices.Contains(paths, "GET /v1/namespaces") {
		t.Fatalf("server saw %v, want the config and namespace calls", paths)
	}
}
