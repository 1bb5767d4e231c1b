package atlas

import (
	"context"
	"fmt"
	"strings"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// DataFrameWriter writes a batch DataFrame, as df.write: files at a path
// (Parquet, JSON, CSV) or lakehouse tables (SaveAsTable, InsertInto), with
// Spark's save modes. Nothing runs until Save, Parquet, JSON, CSV,
// SaveAsTable or InsertInto.
type DataFrameWriter struct {
	df     *DataFrame
	format string
	mode   string
	opts   map[string]string
}

// Write starts describing a batch write of df, as df.write.
func (df *DataFrame) Write() *DataFrameWriter {
	return &DataFrameWriter{df: df, opts: map[string]string{}}
}

// Mode sets the save mode: "append", "overwrite", "ignore", or "error" /
// "errorifexists" (the default).
func (w *DataFrameWriter) Mode(saveMode string) *DataFrameWriter { w.mode = saveMode; return w }

// Format names the data source: "parquet" (the default for paths),
// "json", "csv", or "iceberg" (tables).
func (w *DataFrameWriter) Format(source string) *DataFrameWriter { w.format = source; return w }

// Option sets a writer option (header for csv).
func (w *DataFrameWriter) Option(key string, value any) *DataFrameWriter {
	w.opts[key] = optionText(value)
	return w
}

func (w *DataFrameWriter) saveMode() (pb.WriteOperation_SaveMode, error) {
	switch strings.ToLower(w.mode) {
	case "":
		return pb.WriteOperation_SAVE_MODE_UNSPECIFIED, nil
	case "append":
		return pb.WriteOperation_SAVE_MODE_APPEND, nil
	case "overwrite":
		return pb.WriteOperation_SAVE_MODE_OVERWRITE, nil
	case "error", "errorifexists", "default":
		return pb.WriteOperation_SAVE_MODE_ERROR_IF_EXISTS, nil
	case "ignore":
		return pb.WriteOperation_SAVE_MODE_IGNORE, nil
	}
	return 0, fmt.Errorf("[INVALID_SAVE_MODE] The specified save mode %q is invalid. Valid save modes include \"append\", \"overwrite\", \"ignore\", \"error\", \"errorifexists\", and \"default\".", w.mode)
}

// run sends the WriteOperation PySpark sends for the same call.
func (w *DataFrameWriter) run(ctx context.Context, what string, set func(*pb.WriteOperation)) error {
	if w.df.err != nil {
		return fmt.Errorf("%s: %w", what, w.df.err)
	}
	mode, err := w.saveMode()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	op := &pb.WriteOperation{Input: w.df.rel, Mode: mode, Options: absPathOptions(w.opts, "path")}
	if w.format != "" {
		op.Source = &w.format
	}
	set(op)
	if _, err := w.df.s.command(ctx, &pb.Command{CommandType: &pb.Command_WriteOperation{WriteOperation: op}}); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Save writes the rows as files of the format under path ("" takes the
// "path" option); a relative path means the program's working directory,
// as it does for the readers.
func (w *DataFrameWriter) Save(path string) error {
	return w.SaveContext(context.Background(), path)
}

// SaveContext is Save with a context.
func (w *DataFrameWriter) SaveContext(ctx context.Context, path string) error {
	return w.run(ctx, "save "+path, func(op *pb.WriteOperation) {
		if path != "" { // else the "path" option, as PySpark's save()
			op.SaveType = &pb.WriteOperation_Path{Path: absPaths([]string{path})[0]}
		}
	})
}

// Parquet writes Parquet files under path.
func (w *DataFrameWriter) Parquet(path string) error { return w.Format("parquet").Save(path) }

// JSON writes JSON Lines files under path.
func (w *DataFrameWriter) JSON(path string) error { return w.Format("json").Save(path) }

// CSV writes CSV files under path.
func (w *DataFrameWriter) CSV(path string) error { return w.Format("csv").Save(path) }

// SaveAsTable writes the rows as the lakehouse table name: created when
// missing; when it exists, appended to (append), replaced (overwrite),
// left alone (ignore) or refused (the default, TABLE_OR_VIEW_ALREADY_EXISTS).
func (w *DataFrameWriter) SaveAsTable(name string) error {
	return w.table(context.Background(), name, pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_SAVE_AS_TABLE)
}

// InsertInto inserts the rows into the existing table name by column
// position; Mode("overwrite") replaces its rows.
func (w *DataFrameWriter) InsertInto(name string) error {
	return w.table(context.Background(), name, pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_INSERT_INTO)
}

func (w *DataFrameWriter) table(ctx context.Context, name string, method pb.WriteOperation_SaveTable_TableSaveMethod) error {
	return w.run(ctx, "write table "+name, func(op *pb.WriteOperation) {
		op.SaveType = &pb.WriteOperation_Table{Table: &pb.WriteOperation_SaveTable{TableName: name, SaveMethod: method}}
	})
}
