package engine_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// Errors about the SQL text (a missing table, view or namespace) name the
// line and column; errors of the storage or catalog under a well-written
// statement name the table but no position: they are not SQL errors.
func TestSQLStorageErrorsCarryNoPosition(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.t (id bigint, v string) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.silver.t VALUES (1, 'a'), (2, 'b')")
	mustSQL(t, s, "CREATE TABLE lakehouse.silver.src (id bigint, v string) USING iceberg")

	// Names at fault: positioned.
	for q, want := range map[string]string{
		"SELECT count(*) FROM lakehouse.silver.nope":                                                            "error at line 1, column 22",
		"SELECT count(*) FROM lakehouse.nons.nope":                                                              "error at line 1, column 22",
		"INSERT INTO lakehouse.silver.nope VALUES (1)":                                                          "error at line 1, column 13",
		"MERGE INTO lakehouse.silver.t t USING lakehouse.silver.nope s ON t.id = s.id WHEN MATCHED THEN DELETE": "error at line 1, column 39",
	} {
		if _, err := s.SQL(q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", q, err, want)
		}
	}

	// The storage fails under the table: its data files are gone (as
	// with expired S3 credentials, the read fails below the SQL).
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			return os.Remove(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SELECT count(*) FROM lakehouse.silver.t",
		"MERGE INTO lakehouse.silver.src d USING lakehouse.silver.t s ON d.id = s.id WHEN NOT MATCHED THEN INSERT *",
		"DESCRIBE lakehouse.silver.t",
	} {
		_, err := s.SQL(q)
		if err == nil {
			t.Fatalf("%q read a table without data files", q)
		}
		if strings.Contains(err.Error(), "error at line") || !strings.Contains(err.Error(), "lakehouse.silver.t") {
			t.Errorf("%q: err = %v, want the table named and no SQL position", q, err)
		}
	}
}
