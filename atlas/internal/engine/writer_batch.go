package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sink/file"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// DataFrameWriter writes a batch DataFrame, as df.write: files
// (parquet/json/csv at a path) or lakehouse tables (saveAsTable,
// insertInto), with Spark's save modes.
type DataFrameWriter struct {
	df     *DataFrame
	format string
	mode   string
	opts   map[string]string
}

// Write returns the batch writer of df.
func (df *DataFrame) Write() *DataFrameWriter {
	return &DataFrameWriter{df: df, opts: map[string]string{}}
}

// Mode sets the save mode: "append", "overwrite", "ignore", "error" or
// "errorifexists" (the default).
func (w *DataFrameWriter) Mode(m string) *DataFrameWriter { w.mode = m; return w }

// Format sets the data source: parquet (the default for paths), json,
// csv, or iceberg (the default for tables).
func (w *DataFrameWriter) Format(f string) *DataFrameWriter { w.format = f; return w }

// Option sets a writer option (header for csv).
func (w *DataFrameWriter) Option(key, value string) *DataFrameWriter {
	w.opts[strings.ToLower(key)] = value
	return w
}

// Options sets several writer options.
func (w *DataFrameWriter) Options(opts map[string]string) *DataFrameWriter {
	for k, v := range opts {
		w.Option(k, v)
	}
	return w
}

// saveMode parses the mode as Spark does.
func (w *DataFrameWriter) saveMode() (file.SaveMode, error) {
	switch strings.ToLower(w.mode) {
	case "", "error", "errorifexists", "default":
		return file.ErrorIfExists, nil
	case "append":
		return file.Append, nil
	case "overwrite":
		return file.Overwrite, nil
	case "ignore":
		return file.Ignore, nil
	}
	return 0, sparkerr.WithParams("INVALID_SAVE_MODE", map[string]string{"mode": w.mode},
		"The specified save mode %q is invalid. Valid save modes include \"append\", \"overwrite\", \"ignore\", \"error\", \"errorifexists\", and \"default\".", w.mode)
}

// ready checks what every write needs: a batch DataFrame without error.
func (w *DataFrameWriter) ready(op string) error {
	if err := w.df.Err(); err != nil {
		return err
	}
	if w.df.IsStreaming() {
		return fmt.Errorf("%s: 'write' can not be called on streaming Dataset/DataFrame: use WriteStream()", op)
	}
	return nil
}

// Save writes the DataFrame's rows as files under path.
func (w *DataFrameWriter) Save(ctx context.Context, path string) error {
	if err := w.ready("save"); err != nil {
		return err
	}
	format := strings.ToLower(w.format)
	if format == "" {
		format = "parquet"
	}
	if format == "iceberg" {
		return sparkerr.New("UNSUPPORTED_FEATURE", "save: an Iceberg table is written by name: use saveAsTable(\"lakehouse.ns.table\")")
	}
	mode, err := w.saveMode()
	if err != nil {
		return err
	}
	opts := file.Options{Format: format, Path: path, Header: strings.EqualFold(w.opts["header"], "true")}
	if format != "parquet" && format != "json" && format != "csv" {
		return sparkerr.WithParams("DATA_SOURCE_NOT_FOUND", map[string]string{"provider": format},
			"Failed to find the data source: %s. Atlas writes parquet, json and csv files, and Iceberg tables with saveAsTable.", format)
	}
	if err := file.Validate(w.df.Schema(), opts); err != nil {
		return err
	}
	schema, recs, err := w.df.Collect(ctx)
	if err != nil {
		return err
	}
	defer releaseAll(recs)
	if _, err := file.WriteBatch(ctx, schema, recs, opts, mode); err != nil {
		if pe, ok := err.(*file.PathExistsError); ok {
			return sparkerr.Wrap("PATH_ALREADY_EXISTS", map[string]string{"outputPath": "file:" + pe.Path}, pe)
		}
		return err
	}
	return nil
}

// Parquet writes parquet files under path.
func (w *DataFrameWriter) Parquet(ctx context.Context, path string) error {
	return w.Format("parquet").Save(ctx, path)
}

// JSON writes JSON Lines files under path.
func (w *DataFrameWriter) JSON(ctx context.Context, path string) error {
	return w.Format("json").Save(ctx, path)
}

// CSV writes CSV files under path.
func (w *DataFrameWriter) CSV(ctx context.Context, path string) error {
	return w.Format("csv").Save(ctx, path)
}

// tableFormat refuses a format other than Iceberg for a lakehouse table.
func (w *DataFrameWriter) tableFormat() error {
	switch strings.ToLower(w.format) {
	case "", "iceberg", "parquet":
		return nil
	}
	return sparkerr.New("UNSUPPORTED_FEATURE", "saveAsTable with format %q: lakehouse tables are Iceberg tables (format \"iceberg\")", w.format)
}

// SaveAsTable writes the rows as the table name: a missing table is
// created with the DataFrame's columns; an existing one is appended to
// (append), replaced (overwrite), left alone (ignore) or refused
// (errorifexists, TABLE_OR_VIEW_ALREADY_EXISTS).
func (w *DataFrameWriter) SaveAsTable(ctx context.Context, name string) error {
	if err := w.ready("saveAsTable"); err != nil {
		return err
	}
	if err := w.tableFormat(); err != nil {
		return err
	}
	mode, err := w.saveMode()
	if err != nil {
		return err
	}
	exists, err := w.df.s.Catalog().TableExists(ctx, name, "")
	if err != nil {
		return err
	}
	switch {
	case !exists:
		return w.viaSQL(ctx, "CREATE TABLE %s USING iceberg AS SELECT * FROM %s", name)
	case mode == file.ErrorIfExists:
		return sparkerr.WithParams("TABLE_OR_VIEW_ALREADY_EXISTS", map[string]string{"relationName": name},
			"Cannot create table or view %s because it already exists. Choose a different name, drop the existing object, or use mode(\"append\") or mode(\"overwrite\").", name)
	case mode == file.Ignore:
		return nil
	case mode == file.Overwrite:
		return w.viaSQL(ctx, "CREATE OR REPLACE TABLE %s USING iceberg AS SELECT * FROM %s", name)
	}
	return w.viaSQL(ctx, "INSERT INTO %s SELECT * FROM %s", name)
}

// InsertInto inserts the rows into the existing table name, matching
// columns by position, as df.write.insertInto(name); mode overwrite
// replaces the table's rows (INSERT OVERWRITE).
func (w *DataFrameWriter) InsertInto(ctx context.Context, name string) error {
	if err := w.ready("insertInto"); err != nil {
		return err
	}
	mode, err := w.saveMode()
	if err != nil {
		return err
	}
	if mode == file.Overwrite {
		return w.viaSQL(ctx, "INSERT OVERWRITE %s SELECT * FROM %s", name)
	}
	return w.viaSQL(ctx, "INSERT INTO %s SELECT * FROM %s", name)
}

// viaSQL runs a statement (table first, then the source view) over the
// DataFrame, named for the statement's duration only, so table writes
// go through the engine's one INSERT and CREATE TABLE path (type checks,
// exactly-once keys inside foreachBatch).
func (w *DataFrameWriter) viaSQL(ctx context.Context, stmt, table string) error {
	s := w.df.s
	view := hiddenViewPrefix + strings.ReplaceAll(uuid.NewString(), "-", "")
	s.registerView(view, w.df)
	defer s.DropTempView(view)
	df, err := s.SQLContext(ctx, fmt.Sprintf(stmt, table, view))
	if err != nil {
		return err
	}
	_, recs, err := df.Collect(ctx)
	releaseAll(recs)
	return err
}

// hiddenViewPrefix starts the names of the views a table write makes for
// itself; listings leave them out.
const hiddenViewPrefix = "__atlas_write_"
