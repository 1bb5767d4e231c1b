package stack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go/catalog"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// initCatalog opens the catalog of cfg, creating the embedded sqlite
// catalog and warehouse when missing, and creates the medallion
// namespaces (lakehouse.DefaultNamespaces). [Up] has checked the
// integrity of an embedded catalog file before. Its errors carry none of
// the catalog's secrets.
func initCatalog(ctx context.Context, cfg lakehouse.Config) error {
	lh, err := lakehouse.Open(ctx, cfg)
	if err != nil {
		return fmt.Errorf("stack: initialise catalog: %w", err)
	}
	defer lh.Close()
	if err := lh.EnsureNamespaces(ctx, lakehouse.DefaultNamespaces...); err != nil {
		return cfg.RedactError(fmt.Errorf("stack: initialise catalog %s: %w", cfg.Name, err))
	}
	return nil
}

// catalogStatus describes the catalog of cfg without creating anything: an
// embedded sqlite catalog whose file does not exist is reported as not
// initialised, one with damaged pages as Damaged. URIs and messages have
// the catalog's secrets masked.
func catalogStatus(ctx context.Context, cfg lakehouse.Config) CatalogInfo {
	ci := catalogStatusSecret(ctx, cfg)
	red := cfg.Redacted()
	ci.URI, ci.Warehouse = red.URI, red.Warehouse
	ci.Error = cfg.Redact(ci.Error)
	for i := range ci.Namespaces {
		for j := range ci.Namespaces[i].Tables {
			ci.Namespaces[i].Tables[j].Error = cfg.Redact(ci.Namespaces[i].Tables[j].Error)
		}
	}
	return ci
}

// catalogStatusSecret is catalogStatus before its secrets are masked.
func catalogStatusSecret(ctx context.Context, cfg lakehouse.Config) CatalogInfo {
	ci := CatalogInfo{Name: cfg.Name, Type: cfg.Type}
	if file := sqliteFile(cfg); file != "" {
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			ci.Error = "not initialised (run `atlas up`)"
			return ci
		}
	}
	if err := cfg.CheckIntegrity(ctx); err != nil {
		ci.Error = err.Error()
		ci.Damaged = errors.Is(err, lakehouse.ErrCatalogDamaged)
		return ci
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
			// Through lh, so that a broken metadata file is named.
			if tbl, err := lh.LoadTable(ctx, cfg.Name+"."+ni.Name+"."+ti.Name); err != nil {
				ti.Error = err.Error()
			} else {
				ti.Snapshots = len(tbl.Snapshots())
				if s, ok := tbl.CurrentSnapshot(); ok {
					ti.CurrentSnapshotID = s.ID
				}
				if h, err := tbl.Health(ctx); err == nil {
					ti.Health = &h
				}
				if at, what, ok := tbl.LastMaintenance(); ok {
					ti.LastMaintenance = at.Format(time.RFC3339) + " " + what
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
