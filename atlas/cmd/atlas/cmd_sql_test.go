package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// atlas sql positions only errors in the statement: a missing table gets
// line and column, a storage failure under a good statement does not.
func TestSQLCommandPositionsOnlySQLErrors(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	run := func(q string) error { return runSQL(ctx, []string{"--home", home, q}) }
	for _, q := range []string{
		"CREATE TABLE lakehouse.silver.t (id bigint) USING iceberg",
		"INSERT INTO lakehouse.silver.t VALUES (1), (2)",
	} {
		if err := run(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := run("SELECT count(*) FROM lakehouse.silver.nope"); err == nil || !strings.HasPrefix(err.Error(), "error at line 1, column 22: ") {
		t.Errorf("missing table: %v, want it at line 1, column 22", err)
	}
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			return os.Remove(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = run("SELECT count(*) FROM lakehouse.silver.t")
	if err == nil || strings.Contains(err.Error(), "error at line") || !strings.Contains(err.Error(), "lakehouse.silver.t") {
		t.Errorf("storage failure: %v, want the table named and no SQL position", err)
	}
}
