package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/merge"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
)

// MergeResult reports one MERGE INTO (see merge.Result).
type MergeResult = merge.Result

// PropMergeSmallFileRows is the table property holding the row count below
// which a MERGE writes a rewritten file's new content together with the
// inserted rows (see merge.PropSmallFileRows).
const PropMergeSmallFileRows = merge.PropSmallFileRows

// PropMergeAllowDuplicateInserts is the table property that lets a MERGE
// insert several source rows with one new key (see
// merge.PropAllowDuplicateInserts); MergeBuilder.AllowDuplicateInserts
// allows it for one merge.
const PropMergeAllowDuplicateInserts = merge.PropAllowDuplicateInserts

// DefaultMergeKeyIndexRows is how many rows of data files the key indexes
// of a session's merge-on-read MERGEs cover at most (see
// merge.DefaultKeyIndexRows).
const DefaultMergeKeyIndexRows = merge.DefaultKeyIndexRows

// merge runs a MERGE INTO (see merge.Run) and notes it for the live view.
// Inside a foreachBatch callback the commit carries the query and batch ids, so a
// replayed batch whose merge already committed is skipped.
func (s *Session) merge(ctx context.Context, spec sql.MergeSpec, source *DataFrame) (MergeResult, error) {
	res, err := s.mergeInto(ctx, spec, source)
	if err == nil {
		s.noteWrite(BatchWrite{Op: "merge", Table: spec.Target, Updated: res.NumUpdatedRows, Deleted: res.NumDeletedRows,
			Inserted: res.NumInsertedRows, FilesRewritten: res.FilesRewritten, Skipped: res.Skipped, Duration: res.Duration})
	}
	return res, err
}

// mergeInto is merge without the note for the live view: it checks and
// collects the source and skips a replayed batch's merge before running it.
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
	res, err = merge.Run(ctx, merge.Request{Table: tbl, Spec: spec, Schema: schema, Source: recs, Commit: commit, KeyIndexes: s.mergeKeyIndexes()})
	if err == nil {
		res.Duration = time.Since(start)
	}
	return res, err
}

// mergeKeyIndexes returns the session's key index cache, made on first use.
func (s *Session) mergeKeyIndexes() *merge.KeyIndexCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keyIndexes == nil {
		s.keyIndexes = merge.NewKeyIndexCache(DefaultMergeKeyIndexRows)
	}
	return s.keyIndexes
}
