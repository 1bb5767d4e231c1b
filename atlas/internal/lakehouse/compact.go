package lakehouse

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultCompactRows is Compact's target: a file with fewer rows is small.
const DefaultCompactRows = 1 << 20

// CompactResult says what Compact did.
type CompactResult struct {
	// FilesRemoved and FilesAdded count the data files replaced and written.
	FilesRemoved, FilesAdded int
	// Rows and Bytes are the rows and file bytes of the data files
	// rewritten, as their manifests count them: rows deleted by
	// merge-on-read deletes are included.
	Rows, Bytes int64
	// RowsWritten is the rows of the new files: Rows less the rows the
	// deletes removed.
	RowsWritten int64
	// FilesWithDeletes counts the rewritten files that had merge-on-read
	// deletes: their deletes are folded into the new files.
	FilesWithDeletes int
	// ConcurrentFolds counts the bins written again at commit time to fold
	// deletes committed meanwhile against the files they replace.
	ConcurrentFolds int
}

// Compact rewrites the table's small data files (fewer than targetRows
// rows; DefaultCompactRows when targetRows <= 0) into files of about
// targetRows rows, in one snapshot: Iceberg's rewrite_data_files with the
// bin-pack strategy. Files with merge-on-read deletes are rewritten whatever
// their size, with the deletes applied, and their delete files removed:
// the deletes are folded back into data files. A stream that appends a small file per micro-batch
// leaves many; reading them back gets slower with each. The rows, their
// values and the exactly-once history are unchanged: the snapshot carries
// no query id, and the writers' earlier snapshots stay in its ancestry.
//
// It runs beside writers: appends committed meanwhile are kept, and
// merge-on-read deletes committed meanwhile against the files being
// compacted are folded into the new files at commit (the bins they touch
// are written again from their sources). When another writer replaced one
// of the files being compacted (a copy-on-write MERGE), it returns an
// error wrapping ErrConflict and commits nothing; run it again.
// Files of different partitions are never mixed (each written file holds
// one partition).
func (t *Table) Compact(ctx context.Context, targetRows int64) (CompactResult, error) {
	var res CompactResult
	if targetRows <= 0 {
		targetRows = DefaultCompactRows
	}
	r, err := t.NewRewrite()
	if err != nil {
		return res, err
	}
	files, err := r.PlanFiles(ctx, nil)
	if err != nil {
		r.Abort()
		return res, fmt.Errorf("lakehouse: compact %s: %w", t.name, err)
	}
	var small []DataFile
	withDeletes := 0
	for _, f := range files {
		if f.DeleteFiles() > 0 {
			withDeletes++
		}
		if f.RecordCount < targetRows || f.DeleteFiles() > 0 {
			small = append(small, f)
		}
	}
	if len(small) < 2 && withDeletes == 0 {
		r.Abort()
		return res, nil // nothing to bin-pack, no deletes to fold
	}
	res, err = t.binPack(ctx, r, small, targetRows, nil)
	if err != nil {
		return CompactResult{}, fmt.Errorf("lakehouse: compact %s: %w", t.name, err)
	}
	return res, nil
}

// binPack rewrites files (planned by r) into files of about targetRows
// rows, their deletes applied, and commits r: the bin-pack of Compact and
// of the maintenance's tiered compaction. On an error r is aborted and
// nothing is committed. beforeCommit, when set, runs just before the commit.
func (t *Table) binPack(ctx context.Context, r *Rewrite, files []DataFile, targetRows int64, beforeCommit func()) (CompactResult, error) {
	var res CompactResult
	// Bin-pack in file order: read files until a bin holds targetRows rows,
	// write it as one file, go on. Only one bin is in memory at a time.
	var bin []DataFile
	var binRows int64
	flush := func() error {
		if len(bin) == 0 {
			return nil
		}
		recs, err := t.ReadFiles(ctx, bin)
		if err != nil {
			return err
		}
		if len(recs) > 0 { // else every row was deleted: nothing to write
			rec, err := concatRecords(recs)
			releaseRecords(recs)
			if err != nil {
				return err
			}
			res.RowsWritten += rec.NumRows()
			outs, err := r.add(ctx, rec)
			rec.Release()
			if err != nil {
				return err
			}
			r.addBin(bin, outs)
		} else {
			r.addBin(bin, nil)
		}
		if err := r.Remove(bin...); err != nil {
			return err
		}
		res.FilesRemoved += len(bin)
		res.Rows += binRows
		for _, f := range bin {
			res.Bytes += f.SizeBytes
			res.FilesWithDeletes += min(1, f.DeleteFiles())
		}
		bin, binRows = nil, 0
		return nil
	}
	for _, f := range files {
		bin = append(bin, f)
		binRows += f.RecordCount
		if binRows >= targetRows {
			if err := flush(); err != nil {
				r.Abort()
				return CompactResult{}, err
			}
		}
	}
	if len(bin) == 1 && res.FilesRemoved > 0 && bin[0].DeleteFiles() == 0 {
		bin = nil // a lone small file left over: leave it as it is
	}
	if err := flush(); err != nil {
		r.Abort()
		return CompactResult{}, err
	}
	res.FilesAdded = r.FilesAdded()
	if beforeCommit != nil {
		beforeCommit()
	}
	if _, err := r.Commit(ctx, Commit{Extra: map[string]string{"atlas.operation": "compact"}}); err != nil {
		return CompactResult{}, err
	}
	if r.folded > 0 { // the bins folded at commit hold fewer rows
		res.ConcurrentFolds, res.FilesAdded, res.RowsWritten = r.folded, 0, 0
		for _, b := range r.bins {
			res.FilesAdded += len(b.outputs)
			for _, f := range b.outputs {
				res.RowsWritten += f.Count()
			}
		}
	}
	return res, nil
}

// concatRecords joins records of one schema into one record.
func concatRecords(recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("no records to join")
	}
	schema := recs[0].Schema()
	cols := make([]arrow.Array, schema.NumFields())
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for i := range cols {
		parts := make([]arrow.Array, len(recs))
		for j, r := range recs {
			parts[j] = r.Column(i)
		}
		col, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, fmt.Errorf("join column %s: %w", schema.Field(i).Name, err)
		}
		cols[i] = col
	}
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// releaseRecords releases every record of recs.
func releaseRecords(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
