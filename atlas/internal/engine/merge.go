package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/sql"
)

// MergeResult reports one MERGE INTO. The four counts are the columns of
// Spark's (Delta's) MERGE result; the others say what was committed.
type MergeResult struct {
	// NumAffectedRows is updated + deleted + inserted rows.
	NumAffectedRows int64
	// NumUpdatedRows counts target rows rewritten by an UPDATE clause.
	NumUpdatedRows int64
	// NumDeletedRows counts target rows removed by a DELETE clause.
	NumDeletedRows int64
	// NumInsertedRows counts rows added by an INSERT clause.
	NumInsertedRows int64
	// FilesRewritten is the number of data files the merge replaced
	// (copy-on-write): only files holding a changed row are rewritten.
	// Always 0 under merge-on-read.
	FilesRewritten int
	// FilesScanned is the number of data files read because their
	// statistics could hold a source key.
	FilesScanned int
	// Mode is the table's write.merge.mode the merge ran with:
	// copy-on-write or merge-on-read.
	Mode string
	// FilesWithDeletes is the number of data files a merge-on-read merge
	// deleted rows of (by position, without rewriting them).
	FilesWithDeletes int
	// DeleteFilesWritten is the number of delete files (position delete
	// files, or Puffin files of deletion vectors) a merge-on-read merge
	// wrote.
	DeleteFilesWritten int
	// Skipped is set when the merge ran inside foreachBatch for a batch whose
	// merge had already committed (a replay after a crash): nothing was
	// written, and the counts are zero.
	Skipped bool
	// Attempts is how many times the merge was computed (more than one
	// after a conflicting concurrent commit).
	Attempts int
	// Duration is the wall time of the merge.
	Duration time.Duration
}

// maxMergeAttempts bounds how often a merge is recomputed after a
// concurrent writer removed a file it was rewriting.
const maxMergeAttempts = 5

// merge runs a MERGE INTO, committed as one snapshot: copy-on-write over
// the data files that may hold a source key (RewriteFiles), or, when the
// table's write.merge.mode is merge-on-read, position deletes plus one new
// data file (RowDelta). Inside a
// foreachBatch callback the commit carries the query and batch ids, so a
// replayed batch whose merge already committed is skipped.
func (s *Session) merge(ctx context.Context, spec sql.MergeSpec, source *DataFrame) (MergeResult, error) {
	res, err := s.mergeInto(ctx, spec, source)
	if err == nil {
		s.noteWrite(BatchWrite{Op: "merge", Table: spec.Target, Updated: res.NumUpdatedRows, Deleted: res.NumDeletedRows,
			Inserted: res.NumInsertedRows, FilesRewritten: res.FilesRewritten, Skipped: res.Skipped, Duration: res.Duration})
	}
	return res, err
}

// mergeInto is merge without the note for the live view.
func (s *Session) mergeInto(ctx context.Context, spec sql.MergeSpec, source *DataFrame) (MergeResult, error) {
	start := time.Now()
	res := MergeResult{}
	if err := source.Err(); err != nil {
		return res, fmt.Errorf("merge into %s: source: %w", spec.Target, err)
	}
	if source.IsStreaming() {
		return res, fmt.Errorf("merge into %s: the source is a streaming DataFrame; run the merge inside WriteStream().ForeachBatch on the micro-batch", spec.Target)
	}
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return res, err
	}
	tbl, err := lh.LoadTable(ctx, spec.Target)
	if err != nil {
		return res, fmt.Errorf("merge into %s: %w", spec.Target, err)
	}
	commit := s.nextWrite("merge")
	if commit.QueryID != "" {
		done, err := tbl.Committed(ctx, commit)
		if err != nil {
			return res, fmt.Errorf("merge into %s: %w", spec.Target, err)
		}
		if done {
			res.Skipped, res.Duration = true, time.Since(start)
			return res, nil
		}
	}
	schema, recs, err := source.Collect(ctx)
	if err != nil {
		return res, fmt.Errorf("merge into %s: source: %w", spec.Target, err)
	}
	c := expr.NewCtx(ctx)
	srcRec, err := exec.Concat(c, schema, recs)
	releaseAll(recs)
	if err != nil {
		return res, fmt.Errorf("merge into %s: source: %w", spec.Target, err)
	}
	defer srcRec.Release()
	mp, err := sql.PlanMerge(spec, tbl.Schema(), schema)
	if err != nil {
		return res, err
	}
	for {
		res.Attempts++
		src, err := newMergeSource(c, mp, srcRec)
		if err != nil {
			return res, err
		}
		var out *mergeOutcome
		res.Mode = tbl.MergeMode()
		if res.Mode == lakehouse.MergeOnRead {
			out, err = s.computeMergeMoR(ctx, tbl, mp, src)
		} else {
			out, err = computeMerge(ctx, tbl, mp, src)
		}
		if err != nil {
			return res, err
		}
		res.FilesScanned = out.scanned
		if out.empty() {
			out.abort()
			res.Duration = time.Since(start)
			return res, nil
		}
		committed, err := out.commit(ctx, commit)
		if errors.Is(err, lakehouse.ErrConflict) && res.Attempts < maxMergeAttempts {
			if err := tbl.Refresh(ctx); err != nil {
				return res, fmt.Errorf("merge into %s: %w", spec.Target, err)
			}
			continue
		}
		if err != nil {
			return res, fmt.Errorf("merge into %s: %w", spec.Target, err)
		}
		res.Duration = time.Since(start)
		if !committed {
			res.Skipped = true
			return res, nil
		}
		res.NumUpdatedRows, res.NumDeletedRows, res.NumInsertedRows = out.updated, out.deleted, out.inserted
		res.NumAffectedRows = out.updated + out.deleted + out.inserted
		if out.delta != nil {
			res.FilesWithDeletes = out.rewritten
			res.DeleteFilesWritten = out.delta.DeleteFilesWritten()
		} else {
			res.FilesRewritten = out.rewritten
		}
		return res, nil
	}
}

// computeMerge plans the files that may hold a source key, then reads,
// merges and writes each of them in a bounded pool of workers (a file's
// new content is written while the next files are read), and finally
// writes the inserted rows. The returned outcome's rewrite is ready to
// commit; on error it was aborted. The rewrite validates that no concurrent
// commit added rows matching the key filter (serializable isolation for
// the merge's keys): otherwise two merges inserting the same new key could
// both commit it.
func computeMerge(ctx context.Context, tbl *lakehouse.Table, mp *sql.MergePlan, src *mergeSource) (*mergeOutcome, error) {
	rw, err := tbl.NewRewrite()
	if err != nil {
		return nil, err
	}
	o := &mergeOutcome{rw: rw, packBelow: packBelowRows(tbl)}
	filter := keyFilter(mp, src)
	rw.ValidateNoConflictingData(filter)
	var files []lakehouse.DataFile
	if len(mp.Matched) > 0 || len(mp.NotMatched) > 0 || len(mp.NotMatchedBySource) > 0 {
		if files, err = rw.PlanFiles(ctx, filter); err != nil {
			rw.Abort()
			return nil, err
		}
	}
	o.scanned = len(files)
	if err := o.rewriteAll(ctx, tbl, mp, src, files); err != nil {
		releaseAll(o.packed)
		rw.Abort()
		return nil, err
	}
	c := expr.NewCtx(ctx)
	allowDup := mp.Spec.AllowDuplicateInserts || strings.EqualFold(tbl.Properties()[PropMergeAllowDuplicateInserts], "true")
	if err := mergeInserts(c, mp, src, o, allowDup); err != nil {
		releaseAll(o.inserts)
		releaseAll(o.packed)
		rw.Abort()
		return nil, err
	}
	ins, err := sortedInserts(c, mp, append(o.packed, o.inserts...))
	o.inserts, o.packed = nil, nil
	if err == nil && ins != nil {
		err = addChunks(ctx, rw, ins, o.packBelow)
		ins.Release()
	}
	if err != nil {
		rw.Abort()
		return nil, err
	}
	return o, nil
}

// mergeParallelism bounds the files a merge reads, merges and writes at the
// same time: one more than the cores, so that file I/O overlaps the
// CPU-bound decoding and encoding.
func mergeParallelism() int { return max(2, runtime.GOMAXPROCS(0)+1) }

// rewriteAll runs rewriteFile over files in a pool of mergeParallelism
// workers; the first error stops the others.
func (o *mergeOutcome) rewriteAll(ctx context.Context, tbl *lakehouse.Table, mp *sql.MergePlan, src *mergeSource, files []lakehouse.DataFile) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(mergeParallelism(), len(files)) {
		wg.Go(func() {
			c := expr.NewCtx(ctx) // Ctx metrics are not safe for concurrent use
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				if err := o.rewriteFile(ctx, c, tbl, mp, src, files[i]); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// rewriteFile reads one planned file, applies the MATCHED and NOT MATCHED
// BY SOURCE clauses to its rows and, when a row changed, marks it removed
// and writes its new content as one data file.
func (o *mergeOutcome) rewriteFile(ctx context.Context, c *expr.Ctx, tbl *lakehouse.Table, mp *sql.MergePlan, src *mergeSource, f lakehouse.DataFile) error {
	recs, err := tbl.ReadFiles(ctx, []lakehouse.DataFile{f})
	if err != nil {
		return err
	}
	rec, err := exec.Concat(c, mp.Target, relabel(mp.Target, recs))
	releaseAll(recs)
	if err != nil {
		return err
	}
	var n mergeCounts
	next, changed, err := mergeFile(c, mp, src, rec, &n)
	rec.Release()
	if err != nil || !changed {
		return err
	}
	defer next.Release()
	if err := o.rw.Remove(f); err != nil {
		return err
	}
	if n := next.NumRows(); n > 0 && n < o.packBelow {
		// A small file: written with the inserts, see packBelowRows.
		next.Retain()
		o.mu.Lock()
		o.packed = append(o.packed, next)
		o.mu.Unlock()
	} else if n > 0 {
		if err := o.rw.Add(ctx, next); err != nil {
			return err
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.updated += n.updated
	o.deleted += n.deleted
	o.rewritten++
	return nil
}

// PropMergeSmallFileRows is the table property holding the row count below
// which a MERGE does not write a rewritten file's new content on its own but
// together with the inserted rows, sorted by key and cut into files of that
// many rows. Without it the small files of each merge's inserts pile up and
// every later merge touching recent keys rewrites all of them. 0 turns
// packing off (one output file per rewritten file). Default 32768.
const PropMergeSmallFileRows = "atlas.merge.small-file-rows"

const defaultMergeSmallFileRows = 32768

// packBelowRows reads PropMergeSmallFileRows of tbl.
func packBelowRows(tbl *lakehouse.Table) int64 {
	if v, ok := tbl.Properties()[PropMergeSmallFileRows]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			return n
		}
	}
	return defaultMergeSmallFileRows
}

// addChunks adds rec to rw as files of at most chunk rows (one file when
// chunk is 0), in order.
func addChunks(ctx context.Context, rw *lakehouse.Rewrite, rec arrow.RecordBatch, chunk int64) error {
	n := rec.NumRows()
	if chunk <= 0 || n <= chunk {
		return rw.Add(ctx, rec)
	}
	for lo := int64(0); lo < n; lo += chunk {
		part := rec.NewSlice(lo, min(lo+chunk, n))
		err := rw.Add(ctx, part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// relabel gives records read from a file the table schema (same types).
func relabel(schema *arrow.Schema, recs []arrow.RecordBatch) []arrow.RecordBatch {
	out := make([]arrow.RecordBatch, len(recs))
	for i, r := range recs {
		out[i] = array.NewRecordBatch(schema, r.Columns(), r.NumRows())
	}
	return out
}

// keyFilter is the file filter of a merge: for each key column, IsIn of
// the distinct source key values (a superset of the matching rows for a
// composite key). Column statistics then skip files that cannot hold a
// source key. NOT MATCHED BY SOURCE clauses need every file: nil.
func keyFilter(mp *sql.MergePlan, src *mergeSource) iceberg.BooleanExpression {
	if len(mp.NotMatchedBySource) > 0 {
		return nil
	}
	var out iceberg.BooleanExpression
	for k, key := range mp.Keys {
		f := isIn(mp.Target.Field(key.Target).Name, src.keys[k])
		if f == nil {
			continue
		}
		if out == nil {
			out = f
		} else {
			out = iceberg.NewAnd(out, f)
		}
	}
	return out
}

// inListLimit is the most values a key filter lists with IsIn; above it
// the filter is the values' range. iceberg-go (like Iceberg's Java
// inclusive metrics evaluator, limit 200) does not prune files with
// statistics for long IN lists, while a range prunes clustered keys.
const inListLimit = 200

func isIn(name string, col arrow.Array) iceberg.BooleanExpression {
	ref := iceberg.Reference(name)
	switch a := col.(type) {
	case *array.String:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, a.Value))
	case *array.Int64:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, a.Value))
	case *array.Int32:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, a.Value))
	case *array.Float64:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, a.Value))
	case *array.Date32:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, func(i int) iceberg.Date { return iceberg.Date(a.Value(i)) }))
	case *array.Timestamp:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, func(i int) iceberg.Timestamp { return iceberg.Timestamp(a.Value(i)) }))
	}
	return nil
}

// inOrRange is IsIn(ref, vals) for short lists, else lo <= ref <= hi.
func inOrRange[T interface {
	iceberg.LiteralType
	cmp.Ordered
}](ref iceberg.UnboundTerm, vals []T) iceberg.BooleanExpression {
	if len(vals) <= inListLimit {
		return iceberg.IsIn(ref, vals...)
	}
	lo, hi := slices.Min(vals), slices.Max(vals)
	return iceberg.NewAnd(iceberg.GreaterThanEqual(ref, lo), iceberg.LessThanEqual(ref, hi))
}

func distinct[T comparable](n int, isNull func(int) bool, value func(int) T) []T {
	seen := make(map[T]struct{}, n)
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		if isNull(i) {
			continue
		}
		v := value(i)
		if _, dup := seen[v]; !dup {
			seen[v] = struct{}{}
			out = append(out, v)
		}
	}
	return out
}

// mergeResultFrame is the one-row result of MERGE INTO in SQL.
func (s *Session) mergeResultFrame(r MergeResult) *DataFrame {
	names := []string{"num_affected_rows", "num_updated_rows", "num_deleted_rows", "num_inserted_rows"}
	vals := []int64{r.NumAffectedRows, r.NumUpdatedRows, r.NumDeletedRows, r.NumInsertedRows}
	var meta arrow.Metadata
	if r.Skipped {
		meta = arrow.NewMetadata([]string{"atlas.note"}, []string{"skipped: this micro-batch's merge had already committed (exactly-once replay)"})
	}
	return s.int64Frame("merge", names, vals, &meta)
}

// int64Frame is a one-row batch DataFrame of bigint columns.
func (s *Session) int64Frame(name string, names []string, vals []int64, meta *arrow.Metadata) *DataFrame {
	fields := make([]arrow.Field, len(names))
	cols := make([]arrow.Array, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64}
		b := array.NewInt64Builder(expr.NewCtx(nil).Mem)
		b.Append(vals[i])
		cols[i] = b.NewArray()
		b.Release()
	}
	schema := arrow.NewSchema(fields, meta)
	rec := array.NewRecordBatch(schema, cols, 1)
	return &DataFrame{s: s, node: &plan.LocalScan{Name: name, Out: schema, Records: []arrow.RecordBatch{rec}}}
}
