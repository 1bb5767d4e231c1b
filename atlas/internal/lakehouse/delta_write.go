package lakehouse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// writeDeletes writes the delete files of dels: deletion vectors on format
// v3 (with the superseded vectors to remove), Parquet position delete files
// otherwise. On error nothing stays written.
func (r *RowDelta) writeDeletes(ctx context.Context, dels []*deltaDeletes) (files, superseded []iceberg.DataFile, err error) {
	if len(dels) == 0 {
		return nil, nil, nil
	}
	fs, err := r.base.FS(ctx)
	if err != nil {
		return nil, nil, err
	}
	wfs, ok := fs.(iceio.WriteFileIO)
	if !ok {
		return nil, nil, fmt.Errorf("the table's file system cannot write files")
	}
	for _, d := range dels {
		slices.Sort(d.pos)
		d.pos = slices.Compact(d.pos)
	}
	if r.base.Metadata().Version() >= 3 {
		return r.writeDVs(wfs, dels)
	}
	// One delete file per data file (file granularity), or per partition.
	groups := make([][]*deltaDeletes, 0, len(dels))
	if !strings.EqualFold(r.base.Properties()[PropDeleteGranularity], DeleteGranularityFile) {
		byPart := map[string]int{}
		for _, d := range dels {
			key := partitionKey(d.file.task.File)
			if i, ok := byPart[key]; ok {
				groups[i] = append(groups[i], d)
				continue
			}
			byPart[key] = len(groups)
			groups = append(groups, []*deltaDeletes{d})
		}
	} else {
		for _, d := range dels {
			groups = append(groups, []*deltaDeletes{d})
		}
	}
	files = make([]iceberg.DataFile, len(groups))
	errs := make([]error, len(groups))
	sem := make(chan struct{}, writeParallelism())
	var wg sync.WaitGroup
	for i, g := range groups {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			files[i], errs[i] = r.writePositionDeletes(wfs, g)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		r.t.removeFiles(slices.DeleteFunc(files, func(f iceberg.DataFile) bool { return f == nil }))
		return nil, nil, err
	}
	r.mu.Lock()
	r.groups = make(map[string][]*deltaDeletes, len(files))
	for i, f := range files {
		r.groups[f.FilePath()] = groups[i]
	}
	r.mu.Unlock()
	return files, nil, nil
}

// Delete granularity of merge-on-read on format v2: Iceberg's
// write.delete.granularity.
const (
	// PropDeleteGranularity is the table property choosing how many
	// position delete files a merge-on-read commit writes: one per
	// partition (DeleteGranularityPartition, Atlas's default) or one per
	// data file (DeleteGranularityFile, Iceberg Java's default since
	// 1.8). A CDC micro-batch changes rows of nearly every data file: per
	// file, each merge would write as many small delete files as the
	// table has data files (2.6 times slower in atlas bench cdc). A reader
	// matches a partition's delete file to data files by the bounds of its
	// file_path column and keeps the rows naming the file it reads.
	PropDeleteGranularity = "write.delete.granularity"
	// DeleteGranularityFile writes a delete file per data file.
	DeleteGranularityFile = "file"
	// DeleteGranularityPartition writes a delete file per partition.
	DeleteGranularityPartition = "partition"
)

// partitionKey identifies the spec and partition of a data file.
func partitionKey(df iceberg.DataFile) string {
	part := df.Partition()
	ids := slices.Sorted(maps.Keys(part))
	var b strings.Builder
	fmt.Fprintf(&b, "%d", df.SpecID())
	for _, id := range ids {
		fmt.Fprintf(&b, "|%d=%v", id, part[id])
	}
	return b.String()
}

// writePositionDeletes writes one Parquet position delete file (file_path,
// pos; field ids 2147483546 and 2147483545) for the rows group deletes, all
// of data files of one partition, sorted by file_path then pos as the spec
// requires. A file for one data file records it as its referenced data
// file (file-scoped). iceberg-go v0.7.0 writes
// such files only inside its own Delete (the writer is unexported), so the
// file is written here with pqarrow and described with iceberg-go's
// DataFileFromMetadata, which computes the statistics and the manifest
// entry.
func (r *RowDelta) writePositionDeletes(wfs iceio.WriteFileIO, group []*deltaDeletes) (iceberg.DataFile, error) {
	slices.SortFunc(group, func(a, b *deltaDeletes) int { return strings.Compare(a.file.Path, b.file.Path) })
	d := group[0]
	rows := 0
	for _, g := range group {
		rows += len(g.pos)
	}
	meta := r.base.Metadata()
	lp, err := r.base.LocationProvider()
	if err != nil {
		return nil, err
	}
	path := lp.NewDataLocation(fmt.Sprintf("%s-deletes.parquet", newWriteID()))
	pb := array.NewStringBuilder(memory.DefaultAllocator)
	defer pb.Release()
	ob := array.NewInt64Builder(memory.DefaultAllocator)
	defer ob.Release()
	pb.Reserve(rows)
	for _, g := range group {
		for range g.pos {
			pb.Append(g.file.Path)
		}
		ob.AppendValues(g.pos, nil)
	}
	cols := []arrow.Array{pb.NewArray(), ob.NewArray()}
	defer cols[0].Release()
	defer cols[1].Release()
	rec := array.NewRecordBatch(table.PositionalDeleteArrowSchema, cols, int64(rows))
	defer rec.Release()

	out, err := wfs.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	cw := &countingWriter{w: out}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithStats(true))
	pw, err := pqarrow.NewFileWriter(table.PositionalDeleteArrowSchema, cw, props, pqarrow.DefaultWriterProps())
	if err != nil {
		out.Close()
		_ = wfs.Remove(path)
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	werr := pw.Write(rec)
	if cerr := pw.Close(); werr == nil {
		werr = cerr
	}
	if cerr := out.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = wfs.Remove(path)
		return nil, fmt.Errorf("write %s: %w", path, werr)
	}
	md, err := pw.FileMetadata()
	if err != nil {
		_ = wfs.Remove(path)
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	var spec iceberg.PartitionSpec
	if s := meta.PartitionSpecByID(int(d.file.task.File.SpecID())); s != nil {
		spec = *s
	}
	var ref *string
	if len(group) == 1 {
		ref = &d.file.Path
	}
	df, err := table.DataFileFromMetadata(table.DataFileArgs{
		Schema:             iceberg.PositionalDeleteSchema,
		Spec:               spec,
		Format:             iceberg.ParquetFile,
		Metadata:           md,
		FilePath:           path,
		FileSize:           cw.n,
		Content:            iceberg.EntryContentPosDeletes,
		PartitionValues:    d.file.task.File.Partition(),
		Properties:         meta.Properties(),
		FormatVersion:      meta.Version(),
		ReferencedDataFile: ref,
	})
	if err != nil {
		_ = wfs.Remove(path)
		return nil, fmt.Errorf("describe %s: %w", path, err)
	}
	return df, nil
}

// writeDVs writes one Puffin file holding a deletion vector per data file
// (iceberg-go's DVWriter); a data file's live vector is merged into its new
// one and returned in superseded, to be removed in the same snapshot (at
// most one live vector per data file).
func (r *RowDelta) writeDVs(wfs iceio.WriteFileIO, dels []*deltaDeletes) (files, superseded []iceberg.DataFile, err error) {
	meta := r.base.Metadata()
	w := dv.NewDVWriter(wfs, func(id int32) *iceberg.PartitionSpec { return meta.PartitionSpecByID(int(id)) })
	for _, d := range dels {
		df := d.file.task.File
		for _, old := range d.file.task.DeletionVectorFiles {
			if !table.IsDeletionVector(old) {
				continue
			}
			bm, err := r.t.lh.deletes.dv(wfs, old)
			if err != nil {
				return nil, nil, fmt.Errorf("read deletion vector %s: %w", old.FilePath(), err)
			}
			// Load keeps the bitmap: give it a copy, the cached one is shared.
			cp := dv.NewRoaringPositionBitmap()
			cp.Or(bm)
			w.Load(d.file.Path, cp, df.SpecID(), df.Partition())
			superseded = append(superseded, old)
		}
		if err := w.Add(d.file.Path, d.pos, df.SpecID(), df.Partition()); err != nil {
			return nil, nil, err
		}
	}
	lp, err := r.base.LocationProvider()
	if err != nil {
		return nil, nil, err
	}
	path := lp.NewDataLocation(fmt.Sprintf("%s-deletes.puffin", newWriteID()))
	files, err = w.Flush(context.Background(), path)
	if err != nil {
		_ = wfs.Remove(path)
		return nil, nil, err
	}
	return files, superseded, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// referencedDataFileFieldID is the field id of file_path in position
// delete files.
const referencedDataFileFieldID = 2147483546

// checkNoNewDeletes (a method: it reads partition-scoped delete files
// through the Lakehouse's cache) returns ErrConflict when a delete file committed after
// the snapshot with sequence number baseSeq (live in cur's current
// snapshot) may delete rows of one of files: another writer updated or
// deleted rows there, so the rows computed from the base are stale. This
// is Iceberg Java's validateNoConflictingDeleteFiles (RowDelta) and
// validateNoNewDeletesForDataFiles (RewriteFiles): without it a rewrite
// would drop a concurrent delete and bring the deleted rows back.
func (t *Table) checkNoNewDeletes(ctx context.Context, cur *table.Table, baseSeq int64, files []DataFile) error {
	snap := cur.CurrentSnapshot()
	if snap == nil || len(files) == 0 {
		return nil
	}
	fs, err := cur.FS(ctx)
	if err != nil {
		return fmt.Errorf("check concurrent deletes: %w", err)
	}
	mans, err := snap.Manifests(fs)
	if err != nil {
		return fmt.Errorf("check concurrent deletes: %w", err)
	}
	paths := make(map[string]bool, len(files))
	for _, f := range files {
		paths[f.Path] = true
	}
	for _, m := range mans {
		if m.ManifestContent() != iceberg.ManifestContentDeletes || m.SequenceNum() <= baseSeq {
			continue
		}
		entries, err := m.FetchEntries(fs, true)
		if err != nil {
			return fmt.Errorf("check concurrent deletes: %w", err)
		}
		for _, e := range entries {
			if e.SequenceNum() <= baseSeq {
				continue
			}
			df := e.DataFile()
			if df.ContentType() == iceberg.EntryContentPosDeletes && df.ReferencedDataFile() == nil && !table.IsDeletionVector(df) {
				// Partition-scoped: read which files it names.
				byPath, err := t.lh.deletes.positions(ctx, fs, df.FilePath())
				if err != nil {
					return fmt.Errorf("check concurrent deletes: read %s: %w", df.FilePath(), err)
				}
				for p := range byPath {
					if paths[p] {
						return fmt.Errorf("%w (rows of %s were deleted concurrently by %s)", ErrConflict, p, df.FilePath())
					}
				}
				continue
			}
			if p, ok := deletesAny(df, paths); ok {
				return fmt.Errorf("%w (rows of %s were deleted concurrently by %s)", ErrConflict, p, e.DataFile().FilePath())
			}
		}
	}
	return nil
}

// deletesAny reports whether the delete file df may delete rows of a data
// file in paths, and which: by its referenced data file, else by the
// bounds of its file_path column; an equality delete or a delete file
// without bounds may delete anything.
func deletesAny(df iceberg.DataFile, paths map[string]bool) (string, bool) {
	if ref := df.ReferencedDataFile(); ref != nil && *ref != "" {
		return *ref, paths[*ref]
	}
	lo, hi := df.LowerBoundValues()[referencedDataFileFieldID], df.UpperBoundValues()[referencedDataFileFieldID]
	for p := range paths {
		if df.ContentType() != iceberg.EntryContentPosDeletes || lo == nil || hi == nil || (string(lo) <= p && p <= string(hi)) {
			return p, true
		}
	}
	return "", false
}
