package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// labDirs are the directories a lab leaves under its home, as the tests
// write them (an independent copy of stack.ResetDirs).
var labDirs = []string{"broker", "catalog", "warehouse", "checkpoints", "run", "logs"}

// resetEnv clears the catalog and broker settings (the embedded defaults)
// and points ATLAS_HOME at a fresh directory, returned.
func resetEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("ATLAS_HOME", home)
	for _, k := range []string{"ATLAS_KAFKA_BROKERS", lakehouse.EnvCatalogType, lakehouse.EnvCatalogURI, lakehouse.EnvWarehouse, lakehouse.EnvCatalogProps} {
		t.Setenv(k, "")
	}
	return home
}

// fillHome writes a file into each of dirs under home.
func fillHome(t *testing.T, home string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, d, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// createTable creates namespace.name with one row through the catalog of
// cfg, so that its warehouse holds a real Iceberg table.
func createTable(t *testing.T, cfg lakehouse.Config, name string) {
	t.Helper()
	ctx := context.Background()
	lh, err := lakehouse.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer lh.Close()
	if err := lh.EnsureNamespaces(ctx, "gold"); err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	if _, err := lh.CreateTable(ctx, name, schema, lakehouse.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// stdout runs fn and returns what it printed on os.Stdout.
func stdout(t *testing.T, fn func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	err = fn()
	os.Stdout = old
	w.Close()
	return <-done, err
}

// files lists every regular file under root, relative, sorted.
func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// TestResetNeedsYesAndKeepsTheKernelTools: without --yes nothing is
// deleted and the error lists what would be; with it the lab's data
// directories go, each listed, and the kernel's tools stay.
func TestResetNeedsYesAndKeepsTheKernelTools(t *testing.T) {
	home := resetEnv(t)
	fillHome(t, home, append([]string{"bin", "assets"}, labDirs...)...)
	createTable(t, lakehouse.ConfigFromEnv(home), "lakehouse.gold.t")
	err := runReset(context.Background(), []string{"--home", home})
	if err == nil || !strings.Contains(err.Error(), "--yes") || !strings.Contains(err.Error(), filepath.Join(home, "checkpoints")) {
		t.Fatalf("reset without --yes: %v, want the list and the --yes hint", err)
	}
	for _, d := range labDirs {
		if _, err := os.Stat(filepath.Join(home, d, "f")); err != nil {
			t.Fatalf("reset without --yes deleted %s", d)
		}
	}
	out, err := stdout(t, func() error { return runReset(context.Background(), []string{"--home", home, "--yes"}) })
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, d := range labDirs {
		want = append(want, "removed "+filepath.Join(home, d))
		if _, err := os.Stat(filepath.Join(home, d)); !os.IsNotExist(err) {
			t.Errorf("%s survived reset --yes (%v)", d, err)
		}
	}
	if got := strings.Split(strings.TrimSpace(out), "\n"); !slices.Equal(got, want) {
		t.Errorf("reset printed %q, want each deleted path: %q", got, want)
	}
	if got := files(t, home); !slices.Equal(got, []string{"assets/f", "bin/f"}) {
		t.Errorf("after reset the home holds %v, want the kernel's tools only", got)
	}
}

// refused runs reset --yes on home and checks that it refused with want in
// the reason and deleted nothing.
func refused(t *testing.T, home string, want ...string) string {
	t.Helper()
	before := files(t, home)
	if len(before) == 0 {
		t.Fatal("empty home: the test would prove nothing")
	}
	out, err := stdout(t, func() error { return runReset(context.Background(), []string{"--home", home, "--yes"}) })
	if err == nil {
		t.Fatalf("reset --yes did not refuse; it printed %q", out)
	}
	for _, w := range append(want, "nothing was deleted") {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal %q does not say %q", err, w)
		}
	}
	if after := files(t, home); !slices.Equal(after, before) {
		t.Errorf("a refused reset changed the home: %v, was %v", after, before)
	}
	return err.Error()
}

// TestResetRefusesAnotherCatalog: with a PostgreSQL catalog configured,
// $ATLAS_HOME/warehouse holds that catalog's tables; reset used to delete
// it and claim the tables were not touched. It must refuse, without
// printing the password.
func TestResetRefusesAnotherCatalog(t *testing.T) {
	home := resetEnv(t)
	fillHome(t, home, "broker", "checkpoints", "warehouse/gold/t/metadata", "run")
	t.Setenv(lakehouse.EnvCatalogURI, "postgres://atlas:s3cr3t-pw@127.0.0.1:1/atlas?sslmode=disable")
	msg := refused(t, home, "not the embedded sqlite catalog", "127.0.0.1:1/atlas")
	if strings.Contains(msg, "s3cr3t-pw") {
		t.Errorf("the refusal prints the catalog password: %s", msg)
	}
}

// TestResetRefusesRemoteWarehouse: with an S3 warehouse, reset used to
// delete the sqlite catalog and leave the objects, among which the next
// table was written.
func TestResetRefusesRemoteWarehouse(t *testing.T) {
	home := resetEnv(t)
	fillHome(t, home, "catalog", "checkpoints", "broker")
	t.Setenv(lakehouse.EnvWarehouse, "s3://bucket/atlas")
	refused(t, home, "s3://bucket/atlas", "not a local directory")
}

// TestResetRefusesWarehouseOutsideHome: a local warehouse elsewhere is not
// the embedded stack's, and deleting the catalog would orphan its files.
func TestResetRefusesWarehouseOutsideHome(t *testing.T) {
	home := resetEnv(t)
	fillHome(t, home, "catalog", "checkpoints")
	other := t.TempDir()
	t.Setenv(lakehouse.EnvWarehouse, "file://"+other)
	refused(t, home, other, "outside "+filepath.Join(home, "warehouse"))
}

// TestResetRefusesATableOfAnotherCatalog: another sqlite catalog (any
// other catalog would do) wrote a table into $ATLAS_HOME/warehouse; the
// embedded catalog does not list it, so reset refuses, naming it.
func TestResetRefusesATableOfAnotherCatalog(t *testing.T) {
	home := resetEnv(t)
	fillHome(t, home, "checkpoints", "broker")
	embedded := lakehouse.ConfigFromEnv(home)
	createTable(t, embedded, "lakehouse.gold.mine")
	other := embedded
	other.URI = lakehouse.SQLiteURI(filepath.Join(t.TempDir(), "other.db"))
	createTable(t, other, "lakehouse.gold.theirs")
	refused(t, home, "does not list", filepath.Join(home, "warehouse", "gold.db", "theirs"))
}
