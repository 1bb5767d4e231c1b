package merge

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// mergeSource is the source of a merge, concatenated into one record, with
// its key columns cast to the target key types and indexed by key.
type mergeSource struct {
	rec  arrow.RecordBatch
	keys []arrow.Array // cast to the target key types
	rows map[string]int32
	// distinct are the keys of rows, in source order.
	distinct []string
	dups     map[string]int // keys held by several source rows: how many
	// first[i] is the first source row with row i's key (the row that
	// stands for the key in rows), -1 when a key value is null.
	first   []int32
	matched []atomic.Bool // set by the workers of rewriteAll
}

func newMergeSource(c *expr.Ctx, mp *sql.MergePlan, rec arrow.RecordBatch) (*mergeSource, error) {
	ms := &mergeSource{rec: rec, rows: make(map[string]int32, rec.NumRows()), dups: map[string]int{}, matched: make([]atomic.Bool, rec.NumRows()), first: make([]int32, rec.NumRows())}
	for _, k := range mp.Keys {
		col := rec.Column(k.Source)
		want := mp.Target.Field(k.Target).Type
		if !arrow.TypeEqual(col.DataType(), want) {
			cast, err := expr.CastKey(c, col, want)
			if err != nil {
				return nil, fmt.Errorf("merge: source key %s (%s) does not convert to the target key type %s: %w", mp.Source.Field(k.Source).Name, col.DataType(), want, err)
			}
			col = cast
		}
		ms.keys = append(ms.keys, col)
	}
	var buf []byte
	for i := 0; i < int(rec.NumRows()); i++ {
		var ok bool
		if buf, ok = appendKey(buf[:0], ms.keys, i); !ok {
			ms.first[i] = -1
			continue
		}
		if j, seen := ms.rows[string(buf)]; seen {
			if ms.dups[string(buf)] == 0 {
				ms.dups[string(buf)] = 1
			}
			ms.dups[string(buf)]++
			ms.first[i] = j
			continue
		}
		k := string(buf)
		ms.rows[k] = int32(i)
		ms.distinct = append(ms.distinct, k)
		ms.first[i] = int32(i)
	}
	return ms, nil
}

// mergeOutcome is what a merge commits: the files to remove, the rows that
// replace them plus the inserted rows, and the counts of Spark's result.
type mergeOutcome struct {
	// rw is the copy-on-write commit: the rewritten files are removed
	// from it and their new content added, one data file each, then the
	// inserted rows as one more file.
	rw *lakehouse.Rewrite
	// delta is the merge-on-read commit, instead of rw: the changed rows
	// are deleted by position and written with the inserted rows.
	delta *lakehouse.RowDelta
	// scanned is the number of files planned and read.
	scanned int
	// inserts collects the inserted rows, and packed the new content of
	// small rewritten files (below packBelow rows), until sortedInserts
	// writes them together.
	inserts, packed []arrow.RecordBatch
	packBelow       int64

	mu                         sync.Mutex // guards the counts below
	rewritten                  int
	updated, deleted, inserted int64
}

// empty reports whether the merge changes nothing.
func (o *mergeOutcome) empty() bool {
	if o.delta != nil {
		return o.delta.Empty()
	}
	return o.rw.Empty()
}

// abort drops what the merge wrote.
func (o *mergeOutcome) abort() {
	if o.delta != nil {
		o.delta.Abort()
		return
	}
	o.rw.Abort()
}

// commit commits the merge's rewrite or row delta.
func (o *mergeOutcome) commit(ctx context.Context, c lakehouse.Commit) (bool, error) {
	if o.delta != nil {
		return o.delta.Commit(ctx, c)
	}
	return o.rw.Commit(ctx, c)
}

// mergeCounts are the changes made to one file's rows.
type mergeCounts struct {
	updated, deleted int64
}

// mergeFile applies the MATCHED (and NOT MATCHED BY SOURCE) clauses to the
// rows of one data file. It returns the file's new rows and true when any
// row changed, or false when the file can stay as it is.
func mergeFile(c *expr.Ctx, mp *sql.MergePlan, src *mergeSource, rec arrow.RecordBatch, o *mergeCounts) (arrow.RecordBatch, bool, error) {
	pos, updates, err := fileChanges(c, mp, src, rec, o)
	if err != nil || pos == nil {
		return nil, false, err
	}
	defer releaseAll(updates)
	perm := make([]int32, 0, len(pos))
	for _, p := range pos {
		if p >= 0 {
			perm = append(perm, p)
		}
	}
	all, err := exec.Concat(c, mp.Target, append([]arrow.RecordBatch{rec}, updates...))
	if err != nil {
		return nil, false, err
	}
	defer all.Release()
	out, err := expr.TakeRows(c, all, perm)
	if err != nil {
		return nil, false, err
	}
	return withSchema(mp.Target, out), true, nil
}

// fileChanges applies the MATCHED (and NOT MATCHED BY SOURCE) clauses to
// the rows of rec (target rows). It returns nil when no row changes;
// otherwise pos[i] says what target row i becomes: -1 when deleted, i when
// unchanged, else its row in the concatenation [rec, updates...]. The
// caller owns (releases) updates.
func fileChanges(c *expr.Ctx, mp *sql.MergePlan, src *mergeSource, rec arrow.RecordBatch, o *mergeCounts) (pos []int32, updates []arrow.RecordBatch, err error) {
	n := int(rec.NumRows())
	keyCols := make([]arrow.Array, len(mp.Keys))
	keyNames := make([]string, len(mp.Keys))
	for k, key := range mp.Keys {
		keyCols[k] = rec.Column(key.Target)
		keyNames[k] = mp.Target.Field(key.Target).Name
	}
	var tIdx, sIdx, unmatched []int32
	var buf []byte
	for i := 0; i < n; i++ {
		var ok bool
		buf, ok = appendKey(buf[:0], keyCols, i)
		j, found := int32(0), false
		if ok {
			j, found = src.rows[string(buf)]
		}
		if !found {
			unmatched = append(unmatched, int32(i))
			continue
		}
		if d := src.dups[string(buf)]; d > 1 && checkCardinality(mp) {
			return nil, nil, cardinalityError(mp, describeKey(keyNames, keyCols, i), d)
		}
		src.matched[j].Store(true)
		tIdx = append(tIdx, int32(i))
		sIdx = append(sIdx, j)
	}
	// action[i] for target row i: -1 keep; otherwise the applied clause.
	type applied struct {
		action *sql.MergeAction
		rows   []int32 // rows of the joined record
	}
	var groups []applied
	changed := make([]bool, n)
	collect := func(actions []*sql.MergeAction, joined arrow.RecordBatch, targetRows []int32) error {
		if len(actions) == 0 || len(targetRows) == 0 {
			return nil
		}
		choice, err := chooseClauses(c, actions, joined)
		if err != nil {
			return err
		}
		byAction := make([][]int32, len(actions))
		for r, a := range choice {
			if a < 0 {
				continue
			}
			byAction[a] = append(byAction[a], int32(r))
			changed[targetRows[r]] = true
		}
		for a, rows := range byAction {
			if len(rows) > 0 {
				groups = append(groups, applied{actions[a], rows})
			}
		}
		return nil
	}
	var matchedJoined, bySourceJoined arrow.RecordBatch
	if len(tIdx) > 0 && len(mp.Matched) > 0 {
		if matchedJoined, err = joinRows(c, mp, rec, tIdx, src.rec, sIdx); err != nil {
			return nil, nil, err
		}
		defer matchedJoined.Release()
		if err := collect(mp.Matched, matchedJoined, tIdx); err != nil {
			return nil, nil, err
		}
	}
	if len(unmatched) > 0 && len(mp.NotMatchedBySource) > 0 {
		if bySourceJoined, err = joinRows(c, mp, rec, unmatched, nil, nil); err != nil {
			return nil, nil, err
		}
		defer bySourceJoined.Release()
		if err := collect(mp.NotMatchedBySource, bySourceJoined, unmatched); err != nil {
			return nil, nil, err
		}
	}
	if len(groups) == 0 {
		return nil, nil, nil
	}
	// The new content keeps the file's row order, each changed row in
	// its place (so key-ordered files stay ordered): pos[i] is the row of
	// the concatenation [rec, updates...] that target row i becomes, or -1
	// when it is deleted.
	pos = make([]int32, n)
	for i := range pos {
		pos[i] = int32(i)
	}
	var parts []arrow.RecordBatch
	defer func() {
		if err != nil {
			releaseAll(parts)
		}
	}()
	offset := int32(n)
	for _, g := range groups {
		joined, targetRows := matchedJoined, tIdx
		if g.action.Clause.Match != parser.WhenMatched {
			joined, targetRows = bySourceJoined, unmatched
		}
		if g.action.Delete {
			o.deleted += int64(len(g.rows))
			for _, r := range g.rows {
				pos[targetRows[r]] = -1
			}
			continue
		}
		var sub, up arrow.RecordBatch
		if sub, err = expr.TakeRows(c, joined, g.rows); err != nil {
			return nil, nil, err
		}
		up, err = project(c, mp, g.action, sub, true)
		sub.Release()
		if err != nil {
			return nil, nil, err
		}
		o.updated += int64(len(g.rows))
		parts = append(parts, up)
		for k, r := range g.rows {
			pos[targetRows[r]] = offset + int32(k)
		}
		offset += int32(len(g.rows))
	}
	return pos, parts, nil
}

// mergeInserts applies the NOT MATCHED clauses to the source rows whose
// key matched no target row (a key's match is recorded on its first
// source row). Unless allowDuplicates, two rows inserting one key are an
// error (duplicateInsertError) rather than two target rows with one key.
func mergeInserts(c *expr.Ctx, mp *sql.MergePlan, src *mergeSource, o *mergeOutcome, allowDuplicates bool) error {
	if len(mp.NotMatched) == 0 {
		return nil
	}
	var rows []int32
	for j := range src.matched {
		if f := src.first[j]; f < 0 || !src.matched[f].Load() {
			rows = append(rows, int32(j))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	joined, err := joinRows(c, mp, nil, nil, src.rec, rows)
	if err != nil {
		return err
	}
	defer joined.Release()
	choice, err := chooseClauses(c, mp.NotMatched, joined)
	if err != nil {
		return err
	}
	if !allowDuplicates {
		if err := checkDuplicateInserts(mp, src, rows, choice); err != nil {
			return err
		}
	}
	byAction := make([][]int32, len(mp.NotMatched))
	for r, a := range choice {
		if a >= 0 {
			byAction[a] = append(byAction[a], int32(r))
		}
	}
	for a, sel := range byAction {
		if len(sel) == 0 {
			continue
		}
		sub, err := expr.TakeRows(c, joined, sel)
		if err != nil {
			return err
		}
		ins, err := project(c, mp, mp.NotMatched[a], sub, false)
		sub.Release()
		if err != nil {
			return err
		}
		o.inserted += int64(len(sel))
		o.inserts = append(o.inserts, ins)
	}
	return nil
}

// chooseClauses returns, for each row of joined, the index of the first
// action whose condition holds (null counts as false), or -1.
func chooseClauses(c *expr.Ctx, actions []*sql.MergeAction, joined arrow.RecordBatch) ([]int, error) {
	n := int(joined.NumRows())
	choice := make([]int, n)
	for i := range choice {
		choice[i] = -1
	}
	left := n
	for a, act := range actions {
		if left == 0 {
			break
		}
		if act.Cond == nil {
			for i := range choice {
				if choice[i] < 0 {
					choice[i] = a
				}
			}
			break
		}
		arr, err := act.Cond.Eval(c, joined)
		if err != nil {
			return nil, fmt.Errorf("merge: evaluate %s condition: %w", act.Clause.Match, err)
		}
		b, ok := arr.(*array.Boolean)
		if !ok {
			arr.Release()
			return nil, fmt.Errorf("merge: %s condition is %s, not boolean", act.Clause.Match, arr.DataType())
		}
		for i := 0; i < n; i++ {
			if choice[i] < 0 && b.IsValid(i) && b.Value(i) {
				choice[i] = a
				left--
			}
		}
		arr.Release()
	}
	return choice, nil
}

// project computes the target row of an UPDATE or INSERT action over
// joined rows: a nil value keeps the target column (update) or is null
// (insert); values are cast to the target column types.
func project(c *expr.Ctx, mp *sql.MergePlan, a *sql.MergeAction, joined arrow.RecordBatch, update bool) (arrow.RecordBatch, error) {
	n := joined.NumRows()
	cols := make([]arrow.Array, mp.Target.NumFields())
	defer func() {
		for _, col := range cols {
			if col != nil {
				col.Release()
			}
		}
	}()
	for i, f := range mp.Target.Fields() {
		var col arrow.Array
		switch {
		case a.Values[i] != nil:
			v, err := a.Values[i].Eval(c, joined)
			if err != nil {
				return nil, fmt.Errorf("merge: compute %s: %w", f.Name, err)
			}
			col = v
		case update:
			col = joined.Column(i)
			col.Retain()
		default:
			col = array.MakeArrayOfNull(c.Mem, f.Type, int(n))
		}
		if !arrow.TypeEqual(col.DataType(), f.Type) {
			cast, err := expr.StoreAssign(c, col, f.Type, f.Name)
			col.Release()
			if err != nil {
				return nil, fmt.Errorf("merge: value of %s does not convert to %s: %w", f.Name, f.Type, err)
			}
			col = cast
		}
		cols[i] = col
	}
	return array.NewRecordBatch(mp.Target, cols, n), nil
}

// joinRows builds the joined record of target rows tIdx of target and
// source rows sIdx of source; a nil side gives null columns.
func joinRows(c *expr.Ctx, mp *sql.MergePlan, target arrow.RecordBatch, tIdx []int32, source arrow.RecordBatch, sIdx []int32) (arrow.RecordBatch, error) {
	n := len(tIdx)
	if target == nil {
		n = len(sIdx)
	}
	var cols []arrow.Array
	side := func(rec arrow.RecordBatch, idx []int32, schema *arrow.Schema) error {
		if rec == nil {
			for _, f := range schema.Fields() {
				cols = append(cols, array.MakeArrayOfNull(c.Mem, f.Type, n))
			}
			return nil
		}
		t, err := expr.TakeRows(c, rec, idx)
		if err != nil {
			return err
		}
		defer t.Release()
		for i := 0; i < int(t.NumCols()); i++ {
			col := t.Column(i)
			col.Retain()
			cols = append(cols, col)
		}
		return nil
	}
	if err := side(target, tIdx, mp.Target); err != nil {
		return nil, err
	}
	if err := side(source, sIdx, mp.Source); err != nil {
		return nil, err
	}
	out := array.NewRecordBatch(mp.Joined, cols, int64(n))
	for _, col := range cols {
		col.Release()
	}
	return out, nil
}

// withSchema relabels rec with schema (same column types).
func withSchema(schema *arrow.Schema, rec arrow.RecordBatch) arrow.RecordBatch {
	out := array.NewRecordBatch(schema, rec.Columns(), rec.NumRows())
	rec.Release()
	return out
}

// checkCardinality is Spark's RewriteMergeIntoTable.shouldCheckCardinality:
// several source rows may match one target row when there is no MATCHED
// clause, or when the only one is an unconditional DELETE (the row is
// deleted, whichever source row matched it).
func checkCardinality(mp *sql.MergePlan) bool {
	switch {
	case len(mp.Matched) == 0:
		return false
	case len(mp.Matched) == 1 && mp.Matched[0].Delete && mp.Matched[0].Cond == nil:
		return false
	}
	return true
}

// cardinalityError is Spark's MERGE_CARDINALITY_VIOLATION, with the key and
// the fix.
func cardinalityError(mp *sql.MergePlan, key string, n int) error {
	var keys []string
	for _, k := range mp.Keys {
		keys = append(keys, fmt.Sprintf("%q", mp.Source.Field(k.Source).Name))
	}
	return fmt.Errorf("[MERGE_CARDINALITY_VIOLATION] the ON condition of MERGE INTO %s matched one target row (%s) with %d rows of the source: a target row may be updated or deleted by one source row only. "+
		"A CDC micro-batch often holds several changes of one key; keep the latest change per key before merging, e.g. batch.LatestPerKey([]string{%s}, \"offset\") (the Kafka offset, or the change's timestamp column)",
		mp.Spec.Target, key, n, strings.Join(keys, ", "))
}

// checkDuplicateInserts fails when two of the source rows (rows, with the
// chosen NOT MATCHED clause of each in choice, -1 for none) would insert
// the same key. Rows with a null key are not compared: SQL equality never
// matches them.
func checkDuplicateInserts(mp *sql.MergePlan, src *mergeSource, rows []int32, choice []int) error {
	inserted := map[int32]int{}
	for r, a := range choice {
		if f := src.first[rows[r]]; a >= 0 && f >= 0 {
			inserted[f]++
		}
	}
	var worst int32 = -1
	for f, n := range inserted {
		if n > 1 && (worst < 0 || f < worst) {
			worst = f
		}
	}
	if worst < 0 {
		return nil
	}
	names := make([]string, len(mp.Keys))
	for k, key := range mp.Keys {
		names[k] = mp.Target.Field(key.Target).Name
	}
	return duplicateInsertError(mp, describeKey(names, src.keys, int(worst)), inserted[worst])
}

// PropAllowDuplicateInserts is the table property that lets a MERGE
// insert several source rows with one key that matched no target row
// ('true'). Without it such a merge fails with MERGE_DUPLICATE_INSERT, an
// Atlas guard: Spark inserts every copy, and the table then holds the key
// twice, so every later merge on that key fails its cardinality check.
// MergeSpec.AllowDuplicateInserts (the engine's
// MergeBuilder.AllowDuplicateInserts) allows it for one merge.
const PropAllowDuplicateInserts = "atlas.merge.allow-duplicate-inserts"

// duplicateInsertError reports n source rows inserting one new key, with
// the fix, in the style of cardinalityError.
func duplicateInsertError(mp *sql.MergePlan, key string, n int) error {
	var keys []string
	for _, k := range mp.Keys {
		keys = append(keys, fmt.Sprintf("%q", mp.Source.Field(k.Source).Name))
	}
	return fmt.Errorf("[MERGE_DUPLICATE_INSERT] MERGE INTO %s would insert %d rows with one key (%s): no target row matches that key, so the table would hold it %d times and every later merge of it would fail its cardinality check. "+
		"A CDC micro-batch often holds several changes of one key; keep the latest change per key before merging, e.g. batch.LatestPerKey([]string{%s}, \"offset\") (the Kafka offset, or the change's timestamp column). "+
		"To insert every copy on purpose, set the table property '%s'='true' or call MergeInto(...).AllowDuplicateInserts()",
		mp.Spec.Target, n, key, n, strings.Join(keys, ", "), PropAllowDuplicateInserts)
}
