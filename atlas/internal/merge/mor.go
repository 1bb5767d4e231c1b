package merge

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
)

// computeMergeMoR is computeMerge for a merge-on-read table (write.merge.mode
// = merge-on-read): no data file is rewritten. For each file whose
// statistics may hold a source key, the matched rows are located by the
// file's key columns alone (through the key index cache kc, read once per
// data file) minus the rows already deleted; their positions go into a
// position delete (deletion vector on v3), and their new values, with the
// inserted rows, into one new data file sorted by key. Only when a clause
// reads target columns beyond the keys are the full rows of the files with
// a match read; NOT MATCHED BY SOURCE clauses read every live row.
func computeMergeMoR(ctx context.Context, kc *KeyIndexCache, tbl *lakehouse.Table, mp *sql.MergePlan, src *mergeSource) (*mergeOutcome, error) {
	rd, err := tbl.NewRowDelta()
	if err != nil {
		return nil, err
	}
	o := &mergeOutcome{delta: rd}
	filter := keyFilter(mp, src)
	rd.ValidateNoConflictingData(filter)
	var files []lakehouse.DataFile
	if len(mp.Matched) > 0 || len(mp.NotMatchedBySource) > 0 {
		if files, err = rd.PlanFiles(ctx, filter); err != nil {
			rd.Abort()
			return nil, err
		}
	}
	o.scanned = len(files)
	if err := o.locateAll(ctx, kc, tbl, mp, src, files); err != nil {
		releaseAll(o.packed)
		rd.Abort()
		return nil, err
	}
	rows, err := o.insertedRows(ctx, tbl, mp, src)
	if err == nil && rows != nil {
		before := len(rd.AddedFiles())
		if err = rd.Add(ctx, rows); err == nil {
			// The next merge probes the file just written: index it from
			// the rows in memory instead of reading its keys back.
			if added := rd.AddedFiles()[before:]; len(added) == 1 && added[0].RecordCount == rows.NumRows() && tbl.KeepsRowOrder() {
				kc.seed(tbl, mp, added[0].Path, rows)
			}
		}
		rows.Release()
	}
	if err != nil {
		rd.Abort()
		return nil, err
	}
	return o, nil
}

// locateAll runs locateFile over files (see forEachFile).
func (o *mergeOutcome) locateAll(ctx context.Context, kc *KeyIndexCache, tbl *lakehouse.Table, mp *sql.MergePlan, src *mergeSource, files []lakehouse.DataFile) error {
	full := needsTargetValues(mp)
	return forEachFile(ctx, files, func(ctx context.Context, c *expr.Ctx, f lakehouse.DataFile) error {
		return o.locateFile(ctx, c, kc, tbl, mp, src, f, full)
	})
}

// needsTargetValues reports whether the clauses of mp read target columns
// other than the keys: a condition or value naming one, an UPDATE that
// keeps a non-key column (SET of some columns only), or NOT MATCHED BY
// SOURCE clauses (which see every target row).
func needsTargetValues(mp *sql.MergePlan) bool {
	if len(mp.NotMatchedBySource) > 0 {
		return true
	}
	key := make([]bool, mp.Target.NumFields())
	for _, k := range mp.Keys {
		key[k.Target] = true
	}
	for i, used := range mp.TargetRefs {
		if used && !key[i] {
			return true
		}
	}
	for _, a := range mp.Matched {
		if a.Delete {
			continue
		}
		for i, v := range a.Values {
			if v == nil && !key[i] {
				return true
			}
		}
	}
	return false
}

// locateFile finds the live rows of f the MATCHED (and NOT MATCHED BY
// SOURCE) clauses change, deletes them by position in the row delta and
// keeps their new values for the new data file.
func (o *mergeOutcome) locateFile(ctx context.Context, c *expr.Ctx, kc *KeyIndexCache, tbl *lakehouse.Table, mp *sql.MergePlan, src *mergeSource, f lakehouse.DataFile, full bool) error {
	deleted, err := tbl.DeletedPositions(ctx, f)
	if err != nil {
		return err
	}
	var live []int32 // positions of the rows given to fileChanges
	var rec arrow.RecordBatch
	if len(mp.NotMatchedBySource) > 0 {
		rec, live, err = readLive(ctx, c, tbl, mp, f, deleted, nil)
	} else {
		var ix *keyIndex
		if ix, err = kc.get(ctx, c, tbl, mp, f); err != nil {
			return err
		}
		var srcRows []int32
		for _, key := range src.distinct {
			j := src.rows[key]
			ix.lookup([]byte(key), func(p int32) {
				if !deleted.Contains(int64(p)) {
					live = append(live, p)
					srcRows = append(srcRows, j)
				}
			})
		}
		if len(live) == 0 {
			return nil
		}
		if full {
			order := make([]int, len(live))
			for i := range order {
				order[i] = i
			}
			slices.SortFunc(order, func(a, b int) int { return int(live[a] - live[b]) })
			sorted := make([]int32, len(live))
			for i, k := range order {
				sorted[i] = live[k]
			}
			rec, live, err = readLive(ctx, c, tbl, mp, f, nil, sorted)
		} else {
			rec, err = keyOnlyRows(c, mp, src, srcRows)
		}
	}
	if err != nil {
		return err
	}
	defer rec.Release()
	var n mergeCounts
	pos, updates, err := fileChanges(c, mp, src, rec, &n)
	if err != nil || pos == nil {
		return err
	}
	var del []int64
	for i, p := range pos {
		if p != int32(i) {
			del = append(del, int64(live[i]))
		}
	}
	if err := o.delta.Delete(f, del); err != nil {
		releaseAll(updates)
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.packed = append(o.packed, updates...)
	o.updated += n.updated
	o.deleted += n.deleted
	o.rewritten++
	return nil
}

// readLive reads the full rows of f (file order) and keeps the positions
// in want (sorted; nil: every row not in deleted), returning them with
// their positions.
func readLive(ctx context.Context, c *expr.Ctx, tbl *lakehouse.Table, mp *sql.MergePlan, f lakehouse.DataFile, deleted *lakehouse.Positions, want []int32) (arrow.RecordBatch, []int32, error) {
	recs, err := tbl.ReadFileRaw(ctx, f, nil)
	if err != nil {
		return nil, nil, err
	}
	all, err := concatTarget(c, mp, recs)
	releaseAll(recs)
	if err != nil {
		return nil, nil, err
	}
	defer all.Release()
	if want == nil {
		want = make([]int32, 0, all.NumRows())
		for i := int32(0); i < int32(all.NumRows()); i++ {
			if !deleted.Contains(int64(i)) {
				want = append(want, i)
			}
		}
	}
	out, err := expr.TakeRows(c, all, want)
	if err != nil {
		return nil, nil, err
	}
	return withSchema(mp.Target, out), want, nil
}

// concatTarget joins records read from a file into one record with the
// target schema.
func concatTarget(c *expr.Ctx, mp *sql.MergePlan, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	rl := relabel(mp.Target, recs)
	defer releaseAll(rl)
	cols := make([]arrow.Array, mp.Target.NumFields())
	var n int64
	for _, r := range rl {
		n += r.NumRows()
	}
	for i := range cols {
		parts := make([]arrow.Array, len(rl))
		for k, r := range rl {
			parts[k] = r.Column(i)
		}
		if len(parts) == 0 {
			cols[i] = array.MakeArrayOfNull(c.Mem, mp.Target.Field(i).Type, 0)
			continue
		}
		col, err := array.Concatenate(parts, c.Mem)
		if err != nil {
			for _, done := range cols[:i] {
				done.Release()
			}
			return nil, err
		}
		cols[i] = col
	}
	rec := array.NewRecordBatch(mp.Target, cols, n)
	for _, col := range cols {
		col.Release()
	}
	return rec, nil
}

// keyOnlyRows builds the matched target rows from their keys alone: the
// key columns are the (equal) source keys of srcRows, cast to the target
// key types; other columns are null, which is right because no clause
// reads them (needsTargetValues).
func keyOnlyRows(c *expr.Ctx, mp *sql.MergePlan, src *mergeSource, srcRows []int32) (arrow.RecordBatch, error) {
	n := len(srcRows)
	cols := make([]arrow.Array, mp.Target.NumFields())
	defer func() {
		for _, col := range cols {
			if col != nil {
				col.Release()
			}
		}
	}()
	fields := make([]arrow.Field, len(src.keys))
	for k, key := range mp.Keys {
		fields[k] = arrow.Field{Name: mp.Target.Field(key.Target).Name, Type: src.keys[k].DataType(), Nullable: true}
	}
	keys := array.NewRecordBatch(arrow.NewSchema(fields, nil), src.keys, int64(src.rec.NumRows()))
	taken, err := expr.TakeRows(c, keys, srcRows)
	keys.Release()
	if err != nil {
		return nil, err
	}
	defer taken.Release()
	for k, key := range mp.Keys {
		if cols[key.Target] == nil {
			col := taken.Column(k)
			col.Retain()
			cols[key.Target] = col
		}
	}
	for i, f := range mp.Target.Fields() {
		if cols[i] == nil {
			cols[i] = array.MakeArrayOfNull(c.Mem, f.Type, n)
		}
	}
	return array.NewRecordBatch(mp.Target, cols, int64(n)), nil
}
