package lakehouse

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// packedBin is one bin of a compaction: the data files it read (with the
// base snapshot's deletes applied) and the files it wrote from them.
type packedBin struct {
	sources []DataFile
	outputs []iceberg.DataFile
	// dropped are the positions of each source, beyond its base deletes,
	// that the outputs leave out: concurrent deletes already folded.
	dropped map[string]*Positions
}

// concurrentDeletes are the position deletes committed after a rewrite's
// base snapshot that name rows of the files it removes.
type concurrentDeletes struct {
	// byFile are the positions deleted, by removed data file.
	byFile map[string]*Positions
	// dead are the delete files that name removed data files only: they
	// are removed with them once folded.
	dead []iceberg.DataFile
	// live holds deleteKey of every delete file live in the snapshot read.
	live map[string]bool
}

// deleteKey identifies a delete file: several deletion vectors share one
// Puffin file.
func deleteKey(df iceberg.DataFile) string {
	if off := df.ContentOffset(); off != nil && table.IsDeletionVector(df) {
		return fmt.Sprintf("%s@%d", df.FilePath(), *off)
	}
	return df.FilePath()
}

// readConcurrentDeletes reads cur's delete files, and the positions those
// committed after sequence number baseSeq delete in the files of remove.
// An equality delete committed since that may touch them cannot be folded
// by position: it is a conflict (ErrConflict), as before folding existed.
func (t *Table) readConcurrentDeletes(ctx context.Context, cur *table.Table, baseSeq int64, remove []DataFile) (*concurrentDeletes, error) {
	out := &concurrentDeletes{byFile: map[string]*Positions{}, live: map[string]bool{}}
	snap := cur.CurrentSnapshot()
	if snap == nil {
		return out, nil
	}
	fs, err := cur.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("read concurrent deletes: %w", err)
	}
	mans, err := snap.Manifests(fs)
	if err != nil {
		return nil, fmt.Errorf("read concurrent deletes: %w", err)
	}
	removed := make(map[string]bool, len(remove))
	for _, f := range remove {
		removed[f.Path] = true
	}
	gone := &goneFiles{cur: cur}
	at := func(path string) *Positions {
		if out.byFile[path] == nil {
			out.byFile[path] = &Positions{}
		}
		return out.byFile[path]
	}
	for _, m := range mans {
		if m.ManifestContent() != iceberg.ManifestContentDeletes {
			continue
		}
		entries, err := m.FetchEntries(fs, true)
		if err != nil {
			return nil, fmt.Errorf("read concurrent deletes: %w", err)
		}
		for _, e := range entries {
			df := e.DataFile()
			out.live[deleteKey(df)] = true
			if e.SequenceNum() <= baseSeq {
				continue
			}
			if _, touches := deletesAny(df, removed); !touches {
				continue
			}
			switch {
			case df.ContentType() == iceberg.EntryContentEqDeletes:
				return nil, fmt.Errorf("%w (equality delete %s was committed concurrently; it cannot be folded by position)", ErrConflict, df.FilePath())
			case table.IsDeletionVector(df):
				bm, err := t.lh.deletes.dv(fs, df)
				if err != nil {
					return nil, fmt.Errorf("read deletion vector %s: %w", df.FilePath(), err)
				}
				set := at(*df.ReferencedDataFile())
				for p := range bm.Positions() {
					set.Add(int64(p))
				}
				out.dead = append(out.dead, df)
			default:
				byPath, err := t.lh.deletes.positions(ctx, fs, df.FilePath())
				if err != nil {
					return nil, fmt.Errorf("read position deletes %s: %w", df.FilePath(), err)
				}
				all, some := true, false
				for p, ps := range byPath {
					if !removed[p] {
						g, err := gone.of(ctx, p)
						if err != nil {
							return nil, fmt.Errorf("read concurrent deletes: %w", err)
						}
						all = all && g
						continue
					}
					some = true
					set := at(p)
					for _, pos := range ps {
						set.Add(pos)
					}
				}
				if some && all {
					out.dead = append(out.dead, df)
				}
			}
		}
	}
	return out, nil
}

// foldConcurrent makes the compaction's new files hold what cur holds:
// each bin with a source that lost rows to a delete committed after the
// base snapshot is written again from its sources, raw, less the base's
// deletes and the concurrent ones. The files it replaces were never
// committed and are deleted; *written is updated. It returns the delete
// files to remove with the rewrite: those of fold still live in cur (a
// deletion vector replaced concurrently is not) and the concurrent ones
// that name only removed files. This is how a compaction commits beside a
// merge-on-read stream whose every MERGE deletes rows of the files being
// compacted, instead of planning again and losing the next race
// (apache/iceberg#1286).
func (r *Rewrite) foldConcurrent(ctx context.Context, cur *table.Table, baseSeq int64, remove []DataFile, fold []iceberg.DataFile, written *[]iceberg.DataFile) ([]iceberg.DataFile, error) {
	t := r.t
	cd, err := t.readConcurrentDeletes(ctx, cur, baseSeq, remove)
	if err != nil {
		return nil, err
	}
	for _, b := range r.bins {
		gone, changed, err := t.binDrops(ctx, b, cd.byFile)
		if err != nil {
			return nil, err
		}
		if !changed {
			continue
		}
		outs, err := r.rewriteBin(ctx, b, gone)
		if err != nil {
			return nil, err
		}
		old := b.outputs
		*written = slices.Concat(slices.DeleteFunc(*written, func(f iceberg.DataFile) bool { return slices.Contains(old, f) }), outs)
		t.removeFiles(old) // never committed: only this rewrite wrote them
		b.outputs, b.dropped = outs, gone
		r.folded++
	}
	out := slices.DeleteFunc(slices.Clone(fold), func(d iceberg.DataFile) bool { return !cd.live[deleteKey(d)] })
	seen := map[string]bool{}
	for _, d := range out {
		seen[deleteKey(d)] = true
	}
	for _, d := range cd.dead {
		if !seen[deleteKey(d)] {
			seen[deleteKey(d)] = true
			out = append(out, d)
		}
	}
	return out, nil
}

// binDrops returns, by source of b, the positions its outputs must leave
// out beyond the base deletes (those already dropped and the concurrent
// ones in byFile), and whether that is more than b's outputs leave out.
func (t *Table) binDrops(ctx context.Context, b *packedBin, byFile map[string]*Positions) (map[string]*Positions, bool, error) {
	gone := map[string]*Positions{}
	changed := false
	for _, f := range b.sources {
		extra := byFile[f.Path]
		if extra.Len() == 0 {
			if d := b.dropped[f.Path]; d != nil {
				gone[f.Path] = d
			}
			continue
		}
		base, err := t.DeletedPositions(ctx, f)
		if err != nil {
			return nil, false, err
		}
		set := &Positions{}
		for p := range b.dropped[f.Path].all() {
			set.Add(p)
		}
		for p := range extra.all() {
			if !base.Contains(p) && !set.Contains(p) {
				set.Add(p)
				changed = true
			}
		}
		gone[f.Path] = set
	}
	return gone, changed, nil
}

// rewriteBin writes b's content again: each source raw, less its base
// deletes and the positions gone holds for it.
func (r *Rewrite) rewriteBin(ctx context.Context, b *packedBin, gone map[string]*Positions) ([]iceberg.DataFile, error) {
	t := r.t
	var parts []arrow.RecordBatch
	defer func() { releaseRecords(parts) }()
	for _, f := range b.sources {
		raw, err := t.ReadFileRaw(ctx, f, nil)
		if err != nil {
			return nil, err
		}
		base, err := t.DeletedPositions(ctx, f)
		if err != nil {
			releaseRecords(raw)
			return nil, err
		}
		extra := gone[f.Path]
		kept := keepRows(raw, func(p int64) bool { return !base.Contains(p) && !extra.Contains(p) })
		releaseRecords(raw)
		parts = append(parts, kept...)
	}
	if len(parts) == 0 {
		return nil, nil // every row is deleted now: nothing to write
	}
	rec, err := concatRecords(parts)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return r.write(ctx, rec)
}

// keepRows returns the rows of recs (consecutive positions of one file,
// from 0) whose position keep accepts, as slices of recs (retained: the
// caller releases them and recs).
func keepRows(recs []arrow.RecordBatch, keep func(int64) bool) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	var pos int64
	for _, rec := range recs {
		n := rec.NumRows()
		start := int64(-1)
		for i := int64(0); i <= n; i++ {
			ok := i < n && keep(pos+i)
			switch {
			case ok && start < 0:
				start = i
			case !ok && start >= 0:
				out = append(out, rec.NewSlice(start, i))
				start = -1
			}
		}
		pos += n
	}
	return out
}

// prefold folds the deletes committed since the rewrite's base into the
// bins they hit, before Commit takes the commit lock every writer of the
// table shares. Folding means reading and writing those bins again, which
// takes as long as a compaction's share of the table; done under the lock
// it would stall every streaming commit (a MERGE per micro-batch) for that
// long. After a prefold, the commit has only the deletes that arrived in
// the meantime left to fold (foldConcurrent is incremental: a bin is
// written again only for positions its outputs do not already leave out),
// so a stream waits for a few bins at most, and the compaction does not
// lose the race to it (apache/iceberg#1286). It is best effort: on any
// failure the commit folds everything under the lock, as before, and
// reports the error there.
func (r *Rewrite) prefold(ctx context.Context, baseID, baseSeq int64, remove []DataFile, written *[]iceberg.DataFile) {
	t := r.t
	fresh, err := t.lh.cat.LoadTable(ctx, t.ident)
	if err != nil || snapshotID(fresh) == baseID {
		return
	}
	if checkLive(ctx, fresh, remove) != nil {
		return // the commit fails on it, with its own message
	}
	_, _ = r.foldConcurrent(ctx, fresh, baseSeq, remove, nil, written)
}

// goneFiles answers whether a data file is no longer live in cur, listing
// cur's live data files once, on the first question. A partition-scoped
// position delete file names rows of several data files; once every one of
// them is removed (by this rewrite, or earlier by another) it deletes
// nothing and is removed with the rewrite, instead of dangling in the
// table for good (Iceberg's rewrite_data_files remove-dangling-deletes).
type goneFiles struct {
	cur  *table.Table
	live map[string]bool
}

func (g *goneFiles) of(ctx context.Context, path string) (bool, error) {
	if g.live == nil {
		files, err := liveDataFiles(ctx, g.cur)
		if err != nil {
			return false, fmt.Errorf("list live data files: %w", err)
		}
		g.live = make(map[string]bool, len(files))
		for _, f := range files {
			g.live[f.FilePath()] = true
		}
	}
	return !g.live[path], nil
}
