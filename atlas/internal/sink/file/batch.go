package file

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"
)

// SaveMode is a batch writer's save mode, as Spark's SaveMode.
type SaveMode int

// Spark's save modes (DataFrameWriter.mode).
const (
	ErrorIfExists SaveMode = iota
	Append
	Overwrite
	Ignore
)

// WriteBatch writes records as one file of a batch DataFrameWriter
// (df.write.mode(m).parquet(path)): a part file through a temporary name,
// then _SUCCESS, as Spark's batch writes. ErrorIfExists fails on a
// directory that exists and is not empty (PATH_ALREADY_EXISTS), Ignore
// writes nothing there, Overwrite first removes the files of earlier
// writes (and refuses a directory holding anything else), Append adds a
// file. It tells whether it wrote.
func WriteBatch(ctx context.Context, schema *arrow.Schema, recs []arrow.RecordBatch, opts Options, mode SaveMode) (bool, error) {
	s, err := newSink(schema, opts)
	if err != nil {
		return false, err
	}
	entries, err := os.ReadDir(s.dir)
	exists := err == nil && len(entries) > 0
	if err != nil && !os.IsNotExist(err) {
		return false, fmt.Errorf("%s: %w", s.dir, err)
	}
	switch {
	case exists && mode == ErrorIfExists:
		return false, &PathExistsError{Path: s.dir}
	case exists && mode == Ignore:
		return false, nil
	case exists && mode == Overwrite:
		if err := removeOutput(s.dir, entries); err != nil {
			return false, err
		}
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return false, fmt.Errorf("%s: %w", opts.Format, err)
	}
	path := filepath.Join(s.dir, fmt.Sprintf("part-00000-%s-c000%s", uuid.NewString(), s.ext()))
	if err := s.writeFile(ctx, path, recs); err != nil {
		return false, fmt.Errorf("write %s: %w", opts.Format, err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "_SUCCESS"), nil, 0o644); err != nil {
		return true, fmt.Errorf("write %s: %w", opts.Format, err)
	}
	return true, nil
}

// PathExistsError is Spark's PATH_ALREADY_EXISTS.
type PathExistsError struct{ Path string }

// Error is Spark's message.
func (e *PathExistsError) Error() string {
	return fmt.Sprintf("[PATH_ALREADY_EXISTS] Path file:%s already exists. Set mode as \"overwrite\" to overwrite the existing path.", e.Path)
}

// removeOutput deletes what earlier writes left in dir: part files,
// _SUCCESS, checksums and a sink log. Anything else makes it refuse, so an
// overwrite aimed at the wrong directory deletes nothing.
func removeOutput(dir string, entries []os.DirEntry) error {
	for _, e := range entries {
		n := e.Name()
		if !(strings.HasPrefix(n, "part-") || strings.HasPrefix(n, ".part-") || n == "_SUCCESS" || n == "._SUCCESS.crc" || n == "_spark_metadata") {
			return fmt.Errorf("overwrite %s: it holds %s, which no DataFrame write made; remove it yourself or write elsewhere", dir, n)
		}
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("overwrite %s: %w", dir, err)
		}
	}
	return nil
}
