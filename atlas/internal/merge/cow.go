package merge

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
)

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
	ins, err := o.insertedRows(ctx, tbl, mp, src)
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

// rewriteAll runs rewriteFile over files (see forEachFile).
func (o *mergeOutcome) rewriteAll(ctx context.Context, tbl *lakehouse.Table, mp *sql.MergePlan, src *mergeSource, files []lakehouse.DataFile) error {
	return forEachFile(ctx, files, func(ctx context.Context, c *expr.Ctx, f lakehouse.DataFile) error {
		return o.rewriteFile(ctx, c, tbl, mp, src, f)
	})
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

// PropSmallFileRows is the table property holding the row count below
// which a MERGE does not write a rewritten file's new content on its own but
// together with the inserted rows, sorted by key and cut into files of that
// many rows. Without it the small files of each merge's inserts pile up and
// every later merge touching recent keys rewrites all of them. 0 turns
// packing off (one output file per rewritten file). Default 32768.
const PropSmallFileRows = "atlas.merge.small-file-rows"

// DefaultSmallFileRows is PropSmallFileRows when the table does not set it.
const DefaultSmallFileRows = 32768

// packBelowRows reads PropSmallFileRows of tbl.
func packBelowRows(tbl *lakehouse.Table) int64 {
	if v, ok := tbl.Properties()[PropSmallFileRows]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			return n
		}
	}
	return DefaultSmallFileRows
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

// insertedRows applies the NOT MATCHED clauses (see mergeInserts) and
// returns the inserted rows together with the packed small files, sorted
// by key (see sortedInserts); nil when there are none. The outcome's
// inserts and packed records are released or handed over either way.
func (o *mergeOutcome) insertedRows(ctx context.Context, tbl *lakehouse.Table, mp *sql.MergePlan, src *mergeSource) (arrow.RecordBatch, error) {
	c := expr.NewCtx(ctx)
	allowDup := mp.Spec.AllowDuplicateInserts || strings.EqualFold(tbl.Properties()[PropAllowDuplicateInserts], "true")
	if err := mergeInserts(c, mp, src, o, allowDup); err != nil {
		releaseAll(o.inserts)
		releaseAll(o.packed)
		o.inserts, o.packed = nil, nil
		return nil, err
	}
	rows, err := sortedInserts(c, mp, append(o.packed, o.inserts...))
	o.inserts, o.packed = nil, nil
	return rows, err
}
