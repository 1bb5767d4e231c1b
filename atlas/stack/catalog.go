package stack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/apache/iceberg-go/catalog"

	"github.com/atlas-lakehouse/atlas/atlas/lakehouse"
)

// initCatalog opens the catalog of cfg, creating the embedded sqlite
// catalog and warehouse when missing, and creates the medallion
// namespaces (lakehouse.DefaultNamespaces).
func initCatalog(ctx context.Context, cfg lakehouse.Config) error {
	lh, err := lakehouse.Open(ctx, cfg)
	if err != nil {
		return fmt.Errorf("stack: initialise catalog: %w", err)
	}
	defer lh.Close()
	if err := lh.EnsureNamespaces(ctx, lakehouse.DefaultNamespaces...); err != nil {
		return fmt.Errorf("stack: initialise catalog %s: %w", cfg.Name, err)
	}
	return nil
}

// catalogStatus describes the catalog of cfg without creating anything: an
// embedded sqlite catalog whose file does not exist is reported as not
// initialised.
func catalogStatus(ctx context.Context, cfg lakehouse.Config) CatalogInfo {
	ci := CatalogInfo{Name: cfg.Name, Type: cfg.Type, URI: cfg.URI, Warehouse: cfg.Warehouse}
	if file := sqliteFile(cfg); file != "" {
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			ci.Error = "not initialised (run `atlas up`)"
			return ci
		}
	}
	lh, err := lakehouse.Open(ctx, cfg)
	if err != nil {
		ci.Error = err.Error()
		return ci
	}
	defer lh.Close()
	cat := lh.Catalog()
	nss, err := cat.ListNamespaces(ctx, nil)
	if err != nil {
		ci.Error = fmt.Sprintf("list namespaces: %v", err)
		return ci
	}
	for _, ns := range nss {
		ni := NamespaceInfo{Name: strings.Join(ns, ".")}
		for ident, err := range cat.ListTables(ctx, ns) {
			if err != nil {
				ci.Error = fmt.Sprintf("list tables of %s: %v", ni.Name, err)
				break
			}
			ti := TableInfo{Name: catalog.TableNameFromIdent(ident)}
			if t, err := cat.LoadTable(ctx, ident); err != nil {
				ti.Error = err.Error()
			} else {
				ti.Snapshots = len(t.Metadata().Snapshots())
				if s := t.CurrentSnapshot(); s != nil {
					ti.CurrentSnapshotID = s.SnapshotID
				}
			}
			ni.Tables = append(ni.Tables, ti)
		}
		slices.SortFunc(ni.Tables, func(a, b TableInfo) int { return strings.Compare(a.Name, b.Name) })
		ci.Namespaces = append(ci.Namespaces, ni)
	}
	slices.SortFunc(ci.Namespaces, func(a, b NamespaceInfo) int { return strings.Compare(a.Name, b.Name) })
	return ci
}

// sqliteFile returns the sqlite file of an embedded SQL catalog, or "".
func sqliteFile(cfg lakehouse.Config) string {
	if cfg.Type != "sql" || !strings.HasPrefix(cfg.URI, "file:") {
		return ""
	}
	f := strings.TrimPrefix(cfg.URI, "file:")
	if i := strings.IndexByte(f, '?'); i >= 0 {
		f = f[:i]
	}
	return f
}
