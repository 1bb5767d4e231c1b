package lakehouse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/iceberg-go/catalog"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
)

// iceberg-go and Arrow report a damaged Parquet file or metadata.json
// without naming it ("parquet: magic bytes not found in footer", "invalid
// metadata: unexpected end of JSON input"). The functions here find the
// file behind such an error, so that the message says which one to
// restore.

// explainReadError names the damaged data file among paths behind err, a
// failed read of those files: the first whose Parquet footer does not
// parse. It returns err as it is when err already names a path, when no
// file is found damaged, or when ctx is done.
func explainReadError(ctx context.Context, cur *table.Table, paths []string, err error) error {
	if err == nil || ctx.Err() != nil || mentionsAny(err.Error(), paths) {
		return err
	}
	fs, ferr := cur.FS(ctx)
	if ferr != nil {
		return err
	}
	for _, p := range paths {
		if perr := checkParquet(fs, p); perr != nil {
			if strings.Contains(err.Error(), perr.Error()) {
				return fmt.Errorf("damaged data file %s: %w (restore it from a backup)", p, err)
			}
			return fmt.Errorf("damaged data file %s (%v): %w (restore it from a backup)", p, perr, err)
		}
	}
	return err
}

// checkParquet opens path through fs and parses its Parquet footer.
func checkParquet(fs icebergio.IO, path string) error {
	f, err := fs.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := file.NewParquetReader(f)
	if err != nil {
		return err
	}
	return r.Close()
}

// mentionsAny reports whether msg contains one of paths.
func mentionsAny(msg string, paths []string) bool {
	for _, p := range paths {
		if strings.Contains(msg, p) || strings.Contains(msg, strings.TrimPrefix(p, "file://")) {
			return true
		}
	}
	return false
}

// scanPaths returns the data files scan reads, or nil when they cannot be
// planned.
func scanPaths(ctx context.Context, scan *table.Scan) []string {
	tasks, err := scan.PlanFiles(ctx)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, task := range tasks {
		if p := task.File.FilePath(); !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// explainRecords wraps a record iterator of scan so that a read error
// names the damaged data file behind it (see explainReadError).
func (t *Table) explainRecords(ctx context.Context, cur *table.Table, scan *table.Scan, recs iter.Seq2[arrow.RecordBatch, error]) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for r, err := range recs {
			if err != nil {
				err = explainReadError(ctx, cur, scanPaths(ctx, scan), err)
				yield(nil, fmt.Errorf("lakehouse: scan %s: %w", t.name, err))
				return
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// explainLoadError adds the metadata file to a failed load of the table
// ident, when the catalog is a SQL catalog that can say which file it is
// and err does not name it already: a broken metadata.json otherwise
// reads "invalid metadata: unexpected end of JSON input".
func (l *Lakehouse) explainLoadError(ctx context.Context, ident table.Identifier, err error) error {
	if err == nil || errors.Is(err, catalog.ErrNoSuchTable) || ctx.Err() != nil {
		return err
	}
	loc := l.metadataLocation(ctx, ident)
	if loc == "" || mentionsAny(err.Error(), []string{loc}) {
		return err
	}
	return fmt.Errorf("metadata file %s: %w (restore it from a backup)", loc, err)
}

// metadataLocation asks a SQL catalog for the current metadata file of
// ident; "" when the catalog is another kind or the question fails.
func (l *Lakehouse) metadataLocation(ctx context.Context, ident table.Identifier) string {
	p := l.cfg.properties()
	driver := p["sql.driver"]
	if l.cfg.Type != "sql" || driver == "" {
		return ""
	}
	db, err := sql.Open(driver, strings.TrimPrefix(l.cfg.URI, "sql://"))
	if err != nil {
		return ""
	}
	defer db.Close()
	q := "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?"
	if p["sql.dialect"] == "postgres" {
		q = "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3"
	}
	var loc sql.NullString
	ns := strings.Join(catalog.NamespaceFromIdent(ident), ".")
	if err := db.QueryRowContext(ctx, q, l.cfg.Name, ns, catalog.TableNameFromIdent(ident)).Scan(&loc); err != nil {
		return ""
	}
	return loc.String
}
