package atlas

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// publicPackages is the client wing: the only packages outside
// atlas/internal. Everything only the server uses lives under
// atlas/internal, which Go refuses to import from a notebook cell (or any
// module but this one), so a cell cannot link the engine by accident.
var publicPackages = []string{
	"atlas",                 // the client cells import
	"atlas/cmd/atlas",       // the CLI
	"atlas/connect/interop", // the official Spark Go client against Atlas (tests)
	"atlas/connect/server",  // the Spark Connect server, for programs that serve in-process
	"atlas/display",         // charts in a notebook
	"atlas/drivers",         // Postgres, REST and S3 drivers for the CLI and the server
	"atlas/progress",        // Spark's progress and status types
	"atlas/sketch",          // Count-min sketch and Bloom filter
}

// TestOnlyTheClientWingIsPublic fails when a package appears outside
// atlas/internal that is not one of publicPackages: a server-only package
// belongs under atlas/internal.
func TestOnlyTheClientWingIsPublic(t *testing.T) {
	var got []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "internal" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			pkg := "atlas"
			if dir := filepath.Dir(path); dir != "." {
				pkg += "/" + filepath.ToSlash(dir)
			}
			if !slices.Contains(got, pkg) {
				got = append(got, pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	for _, p := range got {
		if !slices.Contains(publicPackages, p) {
			t.Errorf("package %s is public: move it under atlas/internal, or add it to publicPackages if cells or programs outside Atlas use it", p)
		}
	}
	for _, p := range publicPackages {
		if !slices.Contains(got, p) {
			t.Errorf("public package %s is gone: update publicPackages", p)
		}
	}
}
