// Package merge executes MERGE INTO on a lakehouse table: it matches the
// source rows to the target rows by key, applies the WHEN clauses, and
// commits the result as one snapshot, copy-on-write (the data files holding
// a changed row are rewritten) or merge-on-read (position deletes plus one
// new data file, with a cache of the data files' key indexes). It works on
// Arrow records, the lakehouse table and the sql package's merge plan; the
// engine's Session and DataFrame wrap it (MergeInto, SQL's MERGE INTO,
// DataFrame.LatestPerKey).
package merge

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
)

// Result reports one MERGE INTO. The four counts are the columns of
// Spark's (Delta's) MERGE result; the others say what was committed.
type Result struct {
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

// Request is one MERGE INTO to run.
type Request struct {
	// Table is the target, loaded from the lakehouse.
	Table *lakehouse.Table
	// Spec is the statement (target, aliases, ON, WHEN clauses).
	Spec sql.MergeSpec
	// Schema and Source are the source rows, collected; Run releases
	// Source.
	Schema *arrow.Schema
	Source []arrow.RecordBatch
	// Commit identifies the write inside foreachBatch (query, batch and
	// write seq), so that a replayed batch whose merge already committed is
	// skipped; zero outside foreachBatch.
	Commit lakehouse.Commit
	// KeyIndexes caches the data files' key indexes across the merge-on-read
	// merges of one session; nil builds them for this merge alone.
	KeyIndexes *KeyIndexCache
}

// Run runs a MERGE INTO, committed as one snapshot: copy-on-write over
// the data files that may hold a source key (RewriteFiles), or, when the
// table's write.merge.mode is merge-on-read, position deletes plus one new
// data file (RowDelta). After a conflicting concurrent commit it refreshes
// the table and computes the merge again, up to maxMergeAttempts times.
func Run(ctx context.Context, r Request) (Result, error) {
	start := time.Now()
	res := Result{}
	spec, tbl := r.Spec, r.Table
	c := expr.NewCtx(ctx)
	srcRec, err := exec.Concat(c, r.Schema, r.Source)
	releaseAll(r.Source)
	if err != nil {
		return res, fmt.Errorf("merge into %s: source: %w", spec.Target, err)
	}
	defer srcRec.Release()
	kc := r.KeyIndexes
	if kc == nil {
		kc = NewKeyIndexCache(DefaultKeyIndexRows)
	}
	commit, schema := r.Commit, r.Schema
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
			out, err = computeMergeMoR(ctx, kc, tbl, mp, src)
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

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// mergeParallelism bounds the files a merge reads, merges and writes at the
// same time: one more than the cores, so that file I/O overlaps the
// CPU-bound decoding and encoding.
func mergeParallelism() int { return max(2, runtime.GOMAXPROCS(0)+1) }

// forEachFile runs fn over files in a pool of mergeParallelism workers,
// each with an expr.Ctx of its own (Ctx metrics are not safe for concurrent
// use); the first error stops the others.
func forEachFile(ctx context.Context, files []lakehouse.DataFile, fn func(ctx context.Context, c *expr.Ctx, f lakehouse.DataFile) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(mergeParallelism(), len(files)) {
		wg.Go(func() {
			c := expr.NewCtx(ctx)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, c, files[i]); err != nil {
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
