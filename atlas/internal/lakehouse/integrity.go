package lakehouse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrCatalogDamaged is returned (wrapped) by CheckIntegrity when the
// embedded sqlite catalog file is corrupt.
var ErrCatalogDamaged = errors.New("the catalog file is damaged")

// SQLiteFile returns the file of an embedded sqlite SQL catalog, or "" when
// the catalog is something else (Postgres, REST, ...).
func (c Config) SQLiteFile() string {
	if c.Type != "" && c.Type != "sql" {
		return ""
	}
	f, ok := strings.CutPrefix(c.URI, "file:")
	if !ok && !strings.HasSuffix(c.URI, ".db") {
		return ""
	}
	if i := strings.IndexByte(f, '?'); i >= 0 {
		f = f[:i]
	}
	return f
}

// CheckIntegrity checks the embedded sqlite catalog file with sqlite's
// PRAGMA quick_check, which reads every page: a file with damaged pages
// otherwise answers "table does not exist" or lists no tables, as if it
// were empty. It returns an error wrapping ErrCatalogDamaged that names
// the file and says what to do; nil for a sound file, a file that does
// not exist yet, and catalogs that are not sqlite files.
func (c Config) CheckIntegrity(ctx context.Context) error {
	file := c.SQLiteFile()
	if file == "" {
		return nil
	}
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	problems, err := quickCheck(ctx, c.URI)
	if err != nil {
		if !isCorruption(err) {
			return c.RedactError(fmt.Errorf("lakehouse: check the catalog file %s: %w", file, err))
		}
		problems = []string{err.Error()}
	}
	if len(problems) == 1 && problems[0] == "ok" {
		return nil
	}
	if len(problems) > 5 {
		problems = append(problems[:5], fmt.Sprintf("and %d more", len(problems)-5))
	}
	return c.RedactError(fmt.Errorf("lakehouse: %w: %s (sqlite quick_check: %s); "+
		"restore it from a backup, or start over with `atlas reset --yes` (deletes every table, topic and checkpoint)",
		ErrCatalogDamaged, file, strings.Join(problems, "; ")))
}

// quickCheck runs PRAGMA quick_check on the sqlite database of dsn and
// returns its answer lines ("ok" alone for a sound file).
func quickCheck(ctx context.Context, dsn string) ([]string, error) {
	db, err := sql.Open("sqliteshim", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("quick_check returned nothing")
	}
	return out, nil
}

// isCorruption reports whether a sqlite error says the file is not a
// sound database (SQLITE_CORRUPT, SQLITE_NOTADB).
func isCorruption(err error) bool {
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "malformed") || strings.Contains(msg, "not a database") ||
		strings.Contains(msg, "corrupt")
}
