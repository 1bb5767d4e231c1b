package atlas

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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
	FilesRewritten int
	// FilesScanned is the number of data files read because their
	// statistics could hold a source key.
	FilesScanned int
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

// merge runs a MERGE INTO: copy-on-write over the data files that may hold
// a source key, committed as one snapshot with RewriteFiles. Inside a
// foreachBatch callback the commit carries the query and batch ids, so a
// replayed batch whose merge already committed is skipped.
func (s *Session) merge(ctx context.Context, spec sql.MergeSpec, source *DataFrame) (MergeResult, error) {
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
		last, ok, err := tbl.LastCommittedBatch(ctx, commit.QueryID)
		if err != nil {
			return res, fmt.Errorf("merge into %s: %w", spec.Target, err)
		}
		if ok && last >= commit.BatchID {
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
		out, scanned, err := computeMerge(ctx, c, tbl, mp, src)
		if err != nil {
			return res, err
		}
		res.FilesScanned = scanned
		if out.empty() {
			res.Duration = time.Since(start)
			return res, nil
		}
		committed, err := tbl.RewriteFiles(ctx, out.remove, out.add, commit)
		releaseAll(out.add)
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
		res.FilesRewritten = len(out.remove)
		return res, nil
	}
}

// computeMerge plans the files that may hold a source key, reads them and
// applies the clauses. It returns the outcome and the number of files read.
func computeMerge(ctx context.Context, c *expr.Ctx, tbl *lakehouse.Table, mp *sql.MergePlan, src *mergeSource) (*mergeOutcome, int, error) {
	o := &mergeOutcome{}
	var files []lakehouse.DataFile
	if len(mp.Matched) > 0 || len(mp.NotMatched) > 0 || len(mp.NotMatchedBySource) > 0 {
		var err error
		if files, err = tbl.PlanFiles(ctx, keyFilter(mp, src)); err != nil {
			return nil, 0, err
		}
	}
	contents, err := readEach(ctx, tbl, files)
	if err != nil {
		return nil, 0, err
	}
	for i, f := range files {
		rec, err := exec.Concat(c, mp.Target, relabel(mp.Target, contents[i]))
		releaseAll(contents[i])
		if err != nil {
			return nil, 0, err
		}
		next, changed, err := mergeFile(c, mp, src, rec, o)
		rec.Release()
		if err != nil {
			releaseAll(o.add)
			return nil, 0, err
		}
		if changed {
			o.remove = append(o.remove, f)
			if next.NumRows() > 0 {
				o.add = append(o.add, next)
			} else {
				next.Release()
			}
		}
	}
	if err := mergeInserts(c, mp, src, o); err != nil {
		releaseAll(o.add)
		releaseAll(o.inserts)
		return nil, 0, err
	}
	ins, err := sortedInserts(c, mp, o.inserts)
	o.inserts = nil
	if err != nil {
		releaseAll(o.add)
		return nil, 0, err
	}
	if ins != nil {
		o.add = append(o.add, ins)
	}
	return o, len(files), nil
}

// relabel gives records read from a file the table schema (same types).
func relabel(schema *arrow.Schema, recs []arrow.RecordBatch) []arrow.RecordBatch {
	out := make([]arrow.RecordBatch, len(recs))
	for i, r := range recs {
		out[i] = array.NewRecordBatch(schema, r.Columns(), r.NumRows())
	}
	return out
}

// readEach reads every file on its own (so rows map back to their file),
// a few at a time.
func readEach(ctx context.Context, tbl *lakehouse.Table, files []lakehouse.DataFile) ([][]arrow.RecordBatch, error) {
	out := make([][]arrow.RecordBatch, len(files))
	errs := make([]error, len(files))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = tbl.ReadFiles(ctx, files[i:i+1])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, recs := range out {
			releaseAll(recs)
		}
		return nil, err
	}
	return out, nil
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
