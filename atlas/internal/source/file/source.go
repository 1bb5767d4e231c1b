// Package file is Spark's file stream source for JSON Lines, CSV and
// Parquet files in a directory (FileStreamSource): each trigger lists the
// directory, takes the files not seen before, oldest modification time
// first (newest first with latestFirst), at most maxFilesPerTrigger of
// them, and records them in the seen-files log (sources/0/N in the
// checkpoint, Spark's FileStreamSourceLog) before the batch runs. The
// offset is the log's batch id ({"logOffset":N}), and a batch reads the
// files of log batches (start, end], so each file is read exactly once
// across restarts; a log batch a killed run logged but never ran is the
// next micro-batch as it was logged (see LatestOffset). After a batch
// commits, cleanSource archives or deletes its files.
//
// Readers: JSON Lines through atlas/internal/jsonx (Spark's PERMISSIVE
// rules), CSV through encoding/csv, Parquet through arrow-go's pqarrow.
// Malformed lines are counted in numMalformedRows; the option mode says
// what happens to them (PERMISSIVE, DROPMALFORMED, FAILFAST).
package file

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// Source is a file stream. It implements source.Source,
// source.AvailableNow, source.LoggingSource and source.MetricsReporter.
type Source struct {
	format string
	cfg    *streamConfig
	reader *Reader

	mu      sync.Mutex
	log     source.MetadataLog
	current int64 // the latest log batch id, -1 before the first
	// lastCompact is the latest compaction batch (-1 for none), compacted
	// its entries once read.
	lastCompact int64
	compacted   []entry
	seen        *seenFiles
	// pinned is the listing PrepareForAvailableNow took, nil otherwise.
	pinned  []status
	metrics map[string]int64
}

var (
	_ source.Source          = (*Source)(nil)
	_ source.AvailableNow    = (*Source)(nil)
	_ source.LoggingSource   = (*Source)(nil)
	_ source.MetricsReporter = (*Source)(nil)
)

// New creates a file stream of format ("json", "csv" or "parquet") from
// Spark-style options: path (the directory or glob to watch) and
// maxFilesPerTrigger, latestFirst, maxFileAge, fileNameOnly, cleanSource,
// sourceArchiveDir, pathGlobFilter, plus the format's reader options. The
// schema is required for JSON and CSV, as in Spark; a Parquet stream given
// none takes the schema of the oldest file already there.
func New(format string, opts map[string]string, schema *arrow.Schema) (*Source, error) {
	format = strings.ToLower(format)
	if _, ok := FormatOptions[format]; !ok {
		return nil, fmt.Errorf("unknown file format %q; valid formats: %s", format, strings.Join(Formats, ", "))
	}
	cfg, err := parseStreamOptions(format, opts)
	if err != nil {
		return nil, err
	}
	if schema == nil {
		if format != "parquet" {
			return nil, fmt.Errorf("%s source: a schema must be specified when creating a streaming source DataFrame (as in Spark): call Schema(\"wiki string, bot boolean, timestamp long\") before Load", format)
		}
		files, err := listFiles(cfg.path, cfg.glob, cfg.globFilter)
		if err != nil {
			return nil, fmt.Errorf("parquet source: %w", err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("parquet source: no schema and no file in %s to take it from: call Schema(\"a bigint, b string\") before Load", cfg.path)
		}
		sortFiles(files, false)
		if schema, err = ParquetSchema(files[0].path); err != nil {
			return nil, err
		}
	}
	r, err := newReader(format, schema, cfg.read)
	if err != nil {
		return nil, err
	}
	ageMs := cfg.maxFileAge.Milliseconds()
	if cfg.latestFirst && cfg.maxFiles > 0 {
		ageMs = 1<<63 - 1 // Spark ignores maxFileAge then
	}
	return &Source{format: format, cfg: cfg, reader: r, log: &memLog{}, current: -1, lastCompact: -1, seen: newSeenFiles(ageMs, cfg.nameOnly)}, nil
}

// Description names the source as Spark does: FileStreamSource[file:/in].
func (s *Source) Description() string {
	return "FileStreamSource[file:" + filepath.ToSlash(s.cfg.path) + "]"
}

// Schema is the stream's schema.
func (s *Source) Schema() *arrow.Schema { return s.reader.Schema() }

// UseMetadataLog restores the seen files from the query's seen-files log:
// every file a previous run took is never taken again.
func (s *Source) UseMetadataLog(ctx context.Context, log source.MetadataLog) error {
	names, err := log.List(ctx)
	if err != nil {
		return err
	}
	latest, lastCompact := int64(-1), int64(-1)
	for _, n := range names {
		if id, compact, ok := parseName(n); ok {
			latest = max(latest, id)
			if compact {
				lastCompact = max(lastCompact, id)
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log, s.current, s.lastCompact, s.compacted = log, -1, lastCompact, nil
	s.seen = newSeenFiles(s.seen.maxAgeMs, s.seen.nameOnly)
	if latest < 0 {
		return nil
	}
	from := int64(0)
	if lastCompact >= 0 {
		all, err := s.compactEntries(ctx)
		if err != nil {
			return err
		}
		for _, e := range all {
			s.seen.add(e.Path, e.Timestamp)
		}
		from = lastCompact + 1
	}
	for id := from; id <= latest; id++ {
		es, err := s.entries(ctx, id)
		if err != nil {
			return err
		}
		for _, e := range es {
			s.seen.add(e.Path, e.Timestamp)
		}
	}
	s.seen.purge()
	s.current = latest
	return nil
}

// compactEntries reads (once) the latest compaction file: every entry of
// batches 0..lastCompact.
func (s *Source) compactEntries(ctx context.Context) ([]entry, error) {
	if s.compacted != nil {
		return s.compacted, nil
	}
	name := batchName(s.lastCompact)
	data, ok, err := s.log.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s source: the seen-files log has no %s: the checkpoint is damaged; use a new checkpointLocation", s.format, name)
	}
	es, err := decodeEntries(s.lastCompact, data)
	if err != nil {
		return nil, err
	}
	s.compacted = es
	return es, nil
}

// entries returns the files of log batch id, from its own file or, once
// compacted, from the compaction file.
func (s *Source) entries(ctx context.Context, id int64) ([]entry, error) {
	if id <= s.lastCompact {
		all, err := s.compactEntries(ctx)
		if err != nil {
			return nil, err
		}
		var out []entry
		for _, e := range all {
			if e.BatchID == id {
				out = append(out, e)
			}
		}
		return out, nil
	}
	data, ok, err := s.log.Get(ctx, batchName(id))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s source: the seen-files log has no batch %d: the checkpoint is damaged; use a new checkpointLocation", s.format, id)
	}
	return decodeEntries(id, data)
}

func (s *Source) lockedEntries(ctx context.Context, id int64) ([]entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entries(ctx, id)
}

// addBatch writes log batch id; a compaction batch is written with every
// earlier entry as "id.compact", and the files it replaces are deleted.
func (s *Source) addBatch(ctx context.Context, id int64, batch []entry) error {
	if !isCompactionBatch(id) {
		return s.log.Add(ctx, batchName(id), encodeEntries(batch))
	}
	var all []entry
	if s.lastCompact >= 0 {
		es, err := s.compactEntries(ctx)
		if err != nil {
			return err
		}
		all = append(all, es...)
	}
	for k := s.lastCompact + 1; k < id; k++ {
		es, err := s.entries(ctx, k)
		if err != nil {
			return err
		}
		all = append(all, es...)
	}
	all = append(all, batch...)
	if err := s.log.Add(ctx, batchName(id), encodeEntries(all)); err != nil {
		return err
	}
	prev := s.lastCompact
	s.lastCompact, s.compacted = id, all
	// The compaction holds them all now; a crash before these deletes
	// only leaves files the next restore ignores.
	for k := prev + 1; k < id; k++ {
		_ = s.log.Delete(ctx, batchName(k))
	}
	if prev >= 0 {
		_ = s.log.Delete(ctx, batchName(prev))
	}
	return nil
}

type offset struct {
	LogOffset int64 `json:"logOffset"`
}

func parseOffset(o source.Offset) (int64, error) {
	if o == "" {
		return -1, nil
	}
	var x offset
	if err := json.Unmarshal([]byte(o), &x); err != nil {
		return 0, fmt.Errorf("file source offset %q: %w", o, err)
	}
	return x.LogOffset, nil
}

func formatOffset(n int64) source.Offset {
	b, _ := json.Marshal(offset{LogOffset: n})
	return source.Offset(b)
}

// InitialOffset is before the first log batch: {"logOffset":-1}.
func (s *Source) InitialOffset(context.Context) (source.Offset, error) { return formatOffset(-1), nil }

// LatestOffset lists the files, takes the new ones (oldest first, or
// newest first with latestFirst; at most maxFilesPerTrigger), records them
// as the next log batch and returns that batch's id. With no new file it
// returns start.
//
// A log batch after start was logged by a run (or an attempt) that did
// not get to record the micro-batch in the offsets log: LatestOffset then
// returns the first such batch as it was logged, with no new file. Spark's
// FileStreamSource adds the new files as a further log batch instead, so
// the micro-batch after a crash reads two batches' files at once: it
// exceeds maxFilesPerTrigger, and late rows of the second batch's files
// are judged by an older watermark than in a run that never stopped (a
// window counted them). Taking the logged batch as it was planned keeps
// every micro-batch, and so every result, the same across a crash.
func (s *Source) LatestOffset(ctx context.Context, start source.Offset) (source.Offset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if from, err := parseOffset(start); err == nil && from >= -1 && from < s.current {
		return formatOffset(from + 1), nil
	}
	files := s.pinned
	if files == nil {
		var err error
		if files, err = listFiles(s.cfg.path, s.cfg.glob, s.cfg.globFilter); err != nil {
			return "", fmt.Errorf("%s source: %w", s.format, err)
		}
		sortFiles(files, s.cfg.latestFirst)
	}
	var batch []entry
	for _, f := range files {
		if s.cfg.maxFiles > 0 && len(batch) == s.cfg.maxFiles {
			break
		}
		u := fileURL(f.path)
		if s.seen.isNew(u, f.modTime) {
			batch = append(batch, entry{Path: u, Timestamp: f.modTime, BatchID: s.current + 1})
		}
	}
	if len(batch) == 0 {
		return formatOffset(s.current), nil
	}
	if err := s.addBatch(ctx, s.current+1, batch); err != nil {
		return "", fmt.Errorf("%s source: writing the seen-files log: %w", s.format, err)
	}
	s.current++
	for _, e := range batch {
		s.seen.add(e.Path, e.Timestamp)
	}
	s.seen.purge()
	return formatOffset(s.current), nil
}

// sortFiles orders by modification time (newest first when latest), then
// by path so that files of the same millisecond keep one order.
func sortFiles(fs []status, latest bool) {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].modTime != fs[j].modTime {
			return (fs[i].modTime < fs[j].modTime) != latest
		}
		return fs[i].path < fs[j].path
	})
}

// AvailableOffset returns the latest log batch id.
func (s *Source) AvailableOffset(context.Context) (source.Offset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return formatOffset(s.current), nil
}

// PrepareForAvailableNow lists the files once: the query reads those
// (over several batches with maxFilesPerTrigger) and stops.
func (s *Source) PrepareForAvailableNow(context.Context) error {
	files, err := listFiles(s.cfg.path, s.cfg.glob, s.cfg.globFilter)
	if err != nil {
		return fmt.Errorf("%s source: %w", s.format, err)
	}
	sortFiles(files, s.cfg.latestFirst)
	s.mu.Lock()
	s.pinned = files
	if s.pinned == nil {
		s.pinned = []status{}
	}
	s.mu.Unlock()
	return nil
}

// GetBatch reads the files of log batches (start, end], in the order they
// were logged.
func (s *Source) GetBatch(ctx context.Context, start, end source.Offset, fn func(arrow.RecordBatch) error) error {
	a, err := parseOffset(start)
	if err != nil {
		return err
	}
	b, err := parseOffset(end)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.metrics = nil
	s.mu.Unlock()
	var malformed int64
	for id := a + 1; id <= b; id++ {
		es, err := s.lockedEntries(ctx, id)
		if err != nil {
			return err
		}
		for _, e := range es {
			p, err := urlPath(e.Path)
			if err != nil {
				return err
			}
			n, err := s.reader.ReadFile(ctx, p, fn)
			malformed += n
			if os.IsNotExist(err) {
				return fmt.Errorf("%s source: %s, taken in log batch %d, is gone: files must stay until their batch commits; restore it, or start with a new checkpointLocation", s.format, p, id)
			}
			if err != nil {
				return err
			}
		}
	}
	if malformed > 0 {
		s.mu.Lock()
		s.metrics = map[string]int64{MetricMalformed: malformed}
		s.mu.Unlock()
	}
	return nil
}

// BatchMetrics returns numMalformedRows of the last GetBatch.
func (s *Source) BatchMetrics() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.metrics
}

// Commit applies cleanSource to the files of log batch end: archive moves
// each under sourceArchiveDir (at sourceArchiveDir + its absolute path),
// delete removes it. As in Spark, a file that cannot be moved or removed is
// left where it is.
func (s *Source) Commit(ctx context.Context, end source.Offset) error {
	if s.cfg.clean == CleanOff {
		return nil
	}
	id, err := parseOffset(end)
	if err != nil || id < 0 {
		return err
	}
	es, err := s.lockedEntries(ctx, id)
	if err != nil {
		return err
	}
	for _, e := range es {
		if e.BatchID != id {
			continue
		}
		p, err := urlPath(e.Path)
		if err != nil {
			continue
		}
		switch s.cfg.clean {
		case CleanDelete:
			_ = os.Remove(p)
		case CleanArchive:
			dst := filepath.Join(s.cfg.archiveDir, p)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err == nil {
				_ = os.Rename(p, dst)
			}
		}
	}
	return nil
}

// Close releases the reader.
func (s *Source) Close() error {
	s.reader.Close()
	return nil
}
