package stack

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/iceberg-go/catalog"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// ResetDirs are the directories under an Atlas home that hold a lab's data
// and belong to the embedded stack: the broker's topics, the sqlite
// catalog, the local warehouse, the checkpoints, the daemon's run and log
// files. The kernel's tools (bin/, assets/, warmup/) are not among them.
var ResetDirs = []string{"broker", "catalog", "warehouse", "checkpoints", "run", "logs"}

// ResetPlan is what a reset of one Atlas home deletes, decided from the
// effective catalog configuration before anything is deleted.
type ResetPlan struct {
	// Home is the Atlas home, absolute.
	Home string
	// Delete are the existing directories of [ResetDirs] under Home.
	Delete []string
	// Refusal, when not empty, is why nothing may be deleted (the catalog
	// or the warehouse is not the embedded stack's, or a table in the
	// warehouse is not the embedded catalog's) and what to do instead.
	Refusal string
}

// PlanReset decides what resetting home deletes. Only the embedded stack's
// own data goes: the sqlite catalog inside home/catalog and a local
// warehouse inside home/warehouse whose every table that catalog lists.
// A catalog of any other type or URI (PostgreSQL, REST), a warehouse on an
// object store or outside home, or a table directory the embedded catalog
// does not list makes it refuse with the reason, since deleting the
// catalog, warehouse or checkpoints would then lose or duplicate another
// catalog's data. It opens the embedded catalog read-only in effect (never
// creating it) and deletes nothing.
func PlanReset(ctx context.Context, home string, cfg lakehouse.Config) (ResetPlan, error) {
	abs, err := filepath.Abs(home)
	if err != nil {
		return ResetPlan{}, fmt.Errorf("stack: reset %s: %w", home, err)
	}
	plan := ResetPlan{Home: abs}
	for _, d := range ResetDirs {
		p := filepath.Join(abs, d)
		if _, err := os.Lstat(p); err == nil {
			plan.Delete = append(plan.Delete, p)
		}
	}
	refuse := func(format string, args ...any) (ResetPlan, error) {
		plan.Refusal = fmt.Sprintf(format, args...) +
			"; nothing was deleted (reset only starts the embedded stack over: unset ATLAS_CATALOG_TYPE, ATLAS_CATALOG_URI and ATLAS_WAREHOUSE to reset it, and drop other catalogs' tables through those catalogs)"
		return plan, nil
	}
	catDir := filepath.Join(abs, "catalog")
	whDir := filepath.Join(abs, "warehouse")
	file := sqliteFile(cfg)
	if file == "" {
		return refuse("the configured catalog (%s) is not the embedded sqlite catalog: its tables and the warehouse %s it points at are not atlas's to delete, and deleting the checkpoints would make its queries write their rows again",
			catalogWhere(cfg), lakehouse.Redact(cfg.Warehouse))
	}
	if !within(catDir, file) {
		return refuse("the sqlite catalog %s is outside %s: not the embedded stack's", file, catDir)
	}
	wh, err := url.Parse(cfg.Warehouse)
	if err != nil || wh.Scheme != "file" {
		return refuse("the warehouse %s is not a local directory: reset never deletes objects in a remote store, and a new table there would be written among the old one's files", lakehouse.Redact(cfg.Warehouse))
	}
	if !within(whDir, wh.Path) {
		return refuse("the warehouse %s is outside %s: not the embedded stack's", wh.Path, whDir)
	}
	foreign, err := foreignTables(ctx, cfg, file, wh.Path)
	if err != nil {
		return refuse("cannot tell which tables of the warehouse %s the embedded catalog owns: %v", wh.Path, err)
	}
	if len(foreign) > 0 {
		return refuse("the warehouse holds tables the embedded catalog does not list, so another catalog may use them: %s", strings.Join(foreign, ", "))
	}
	return plan, nil
}

// foreignTables lists the Iceberg table directories under warehouse (a
// directory holding metadata/*.metadata.json) that the sqlite catalog in
// file does not list.
func foreignTables(ctx context.Context, cfg lakehouse.Config, file, warehouse string) ([]string, error) {
	dirs, err := tableDirs(warehouse)
	if err != nil || len(dirs) == 0 {
		return nil, err
	}
	owned := map[string]bool{}
	if _, err := os.Stat(file); err == nil {
		lh, err := lakehouse.Open(ctx, cfg)
		if err != nil {
			return nil, err
		}
		defer lh.Close()
		cat := lh.Catalog()
		nss, err := cat.ListNamespaces(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("list namespaces: %w", err)
		}
		for _, ns := range nss {
			for ident, err := range cat.ListTables(ctx, ns) {
				if err != nil {
					return nil, fmt.Errorf("list tables of %s: %w", strings.Join(ns, "."), err)
				}
				t, err := cat.LoadTable(ctx, ident)
				if err != nil {
					return nil, fmt.Errorf("load %s: %w", catalog.TableNameFromIdent(ident), err)
				}
				if u, err := url.Parse(t.Location()); err == nil && u.Scheme == "file" {
					owned[filepath.Clean(u.Path)] = true
				}
			}
		}
	}
	var foreign []string
	for _, d := range dirs {
		if !owned[d] {
			foreign = append(foreign, d)
		}
	}
	return foreign, nil
}

// tableDirs returns the directories under root that hold Iceberg table
// metadata, sorted.
func tableDirs(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() != "" && strings.HasSuffix(d.Name(), ".metadata.json") && filepath.Base(filepath.Dir(p)) == "metadata" {
			out = append(out, filepath.Clean(filepath.Dir(filepath.Dir(p))))
		}
		return nil
	})
	slices.Sort(out)
	return slices.Compact(out), err
}

// within reports whether path is dir or inside it, comparing cleaned
// absolute paths with symbolic links resolved where they exist.
func within(dir, path string) bool {
	dir, path = resolve(dir), resolve(path)
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolve returns p absolute and cleaned, with the symbolic links of its
// longest existing prefix resolved.
func resolve(p string) string {
	p, _ = filepath.Abs(p)
	rest := ""
	for cur := p; ; cur = filepath.Dir(cur) {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(cur) == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
	}
}

// catalogWhere names a catalog for messages, its secrets masked.
func catalogWhere(cfg lakehouse.Config) string {
	return fmt.Sprintf("%s catalog at %s", cfg.Type, lakehouse.Redact(cfg.URI))
}
