// Package file is the file sink: Format("parquet"), Format("json") and
// Format("csv") of a streaming query with Option("path", dir), exactly-once
// through Spark's file sink log (package sinklog): each batch's files are
// written first under new names (part-00000-<uuid>-c000.<ext>), then the
// batch's entry in <dir>/_spark_metadata lists them, atomically. A batch
// already in the log is skipped when replayed; files of an attempt that
// crashed before its log entry stay in the directory but are never listed
// by readers that go through the log (Spark, and Atlas's file source and
// batch reader), and the replay writes its rows to new files. Only append
// mode is supported, as in Spark.
package file

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sinklog"
)

// Formats are the file formats the sink writes.
var Formats = []string{"parquet", "json", "csv"}

// Options configure the sink.
type Options struct {
	// Format is "parquet", "json" or "csv".
	Format string
	// Path is the output directory (a local path or file:// URL).
	Path string
	// Header, for csv, writes the column names as the first line
	// (Spark's header option, default false).
	Header bool
}

// Sink writes each micro-batch as files plus a sink log entry.
type Sink struct {
	opts   Options
	dir    string
	schema *arrow.Schema
	log    *sinklog.Log
	// afterFiles, in tests, runs after the batch's files are written and
	// before its log entry; an error stops the batch there, as a crash.
	afterFiles func() error
}

// Validate checks the options and the schema, with no side effect.
func Validate(schema *arrow.Schema, opts Options) error {
	_, err := newSink(schema, opts)
	return err
}

// New returns the sink for a query's output schema; it creates nothing
// until the first batch.
func New(schema *arrow.Schema, opts Options) (*Sink, error) { return newSink(schema, opts) }

func newSink(schema *arrow.Schema, opts Options) (*Sink, error) {
	switch opts.Format {
	case "parquet", "json", "csv":
	default:
		return nil, fmt.Errorf("file sink: unknown format %q; file formats: %s", opts.Format, strings.Join(Formats, ", "))
	}
	if opts.Path == "" {
		return nil, fmt.Errorf("the %s sink needs an output directory: add Option(\"path\", \"/data/out\") (or Start with a path)", opts.Format)
	}
	if strings.Contains(opts.Path, "://") && !strings.HasPrefix(opts.Path, "file://") {
		return nil, fmt.Errorf("the %s sink writes local directories; %q is not one: use a local path or file:// URL", opts.Format, opts.Path)
	}
	dir, err := filepath.Abs(strings.TrimPrefix(opts.Path, "file://"))
	if err != nil {
		return nil, fmt.Errorf("%s sink: path %q: %w", opts.Format, opts.Path, err)
	}
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return nil, fmt.Errorf("%s sink: path %s is a file, not a directory", opts.Format, dir)
	}
	for _, f := range schema.Fields() {
		if err := checkType(opts.Format, f); err != nil {
			return nil, err
		}
	}
	return &Sink{opts: opts, dir: dir, schema: schema, log: sinklog.Open(dir)}, nil
}

// Description names the sink as Spark does: FileSink[path].
func (s *Sink) Description() string { return "FileSink[" + s.dir + "]" }

// Dir is the output directory.
func (s *Sink) Dir() string { return s.dir }

// CheckMode accepts append mode only, as Spark's file sink.
func (s *Sink) CheckMode(m sink.OutputMode) error {
	if m != sink.Append {
		return fmt.Errorf("data source %s does not support %s output mode: the file sink only appends (Spark's rule); use OutputMode(\"append\") with a watermark for aggregations, or write updates with ForeachBatch and MERGE INTO", s.opts.Format, m)
	}
	return nil
}

// AddBatch writes the batch's rows to a new file and commits it in the
// log; a batch already in the log is skipped.
func (s *Sink) AddBatch(ctx context.Context, b *sink.Batch) error {
	latest, ok, err := s.log.Latest()
	if err != nil {
		return err
	}
	if ok && b.BatchID <= latest {
		return nil // committed before a crash and replayed
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("%s sink: %w", s.opts.Format, err)
	}
	var entries []sinklog.Entry
	if b.NumRows() > 0 {
		path := filepath.Join(s.dir, fmt.Sprintf("part-00000-%s-c000%s", uuid.NewString(), s.ext()))
		if err := s.writeFile(ctx, path, b.Records); err != nil {
			os.Remove(path)
			return fmt.Errorf("%s sink: batch %d: %w", s.opts.Format, b.BatchID, err)
		}
		e, err := sinklog.FileEntry(path)
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	if s.afterFiles != nil {
		if err := s.afterFiles(); err != nil {
			return err
		}
	}
	if _, err := s.log.Add(b.BatchID, entries); err != nil {
		return fmt.Errorf("%s sink: batch %d: %w", s.opts.Format, b.BatchID, err)
	}
	return nil
}

func (s *Sink) ext() string {
	switch s.opts.Format {
	case "parquet":
		return ".snappy.parquet"
	case "json":
		return ".json"
	}
	return ".csv"
}

// writeFile writes records to path through a temporary name, synced, so
// that a listed file is always whole.
func (s *Sink) writeFile(ctx context.Context, path string, recs []arrow.RecordBatch) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	switch s.opts.Format {
	case "parquet":
		err = writeParquet(f, s.schema, recs)
	case "json":
		err = writeJSON(ctx, f, recs)
	default:
		err = writeCSV(ctx, f, s.schema, recs, s.opts.Header)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// CommittedFiles returns the local paths of the files the sink log of dir
// lists, and false when dir has no sink log.
func CommittedFiles(dir string) ([]string, bool, error) {
	if !sinklog.Exists(dir) {
		return nil, false, nil
	}
	es, err := sinklog.Open(dir).AllFiles()
	if err != nil {
		return nil, true, err
	}
	var out []string
	var errs []error
	for _, e := range es {
		p, err := e.LocalPath()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, p)
	}
	return out, true, errors.Join(errs...)
}

// Committer is the part of a query's checkpoint CheckCheckpoint reads.
type Committer interface {
	// LatestCommit returns the last batch in the commit log.
	LatestCommit(ctx context.Context) (int64, checkpoint.CommitMetadata, bool, error)
	// Location names the checkpoint.
	Location() string
}

// CheckCheckpoint refuses a query whose checkpoint does not match the
// output directory's sink log: a log ahead of the checkpoint's commit log
// by more than the one batch a crash can leave was written by another
// query (or a deleted checkpoint), and Spark's rule would silently skip
// the new query's first batches as "already committed".
func (s *Sink) CheckCheckpoint(ctx context.Context, ck Committer) error {
	latest, ok, err := s.log.Latest()
	if err != nil || !ok {
		return err
	}
	committed := int64(-1)
	id, _, has, err := ck.LatestCommit(ctx)
	if err != nil {
		return err
	}
	if has {
		committed = id
	}
	if latest > committed+1 {
		return fmt.Errorf("%s sink: %s already holds a file sink log up to batch %d, but the checkpoint %s has committed %s: the new query's batches 0..%d would be skipped as already written. Write to a new path, or restart from the checkpoint that wrote it", s.opts.Format, s.dir, latest, ck.Location(), commitText(committed), latest)
	}
	return nil
}

func commitText(id int64) string {
	if id < 0 {
		return "no batch"
	}
	return fmt.Sprintf("up to batch %d", id)
}
