package lakehouse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
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
	files = make([]iceberg.DataFile, len(dels))
	errs := make([]error, len(dels))
	sem := make(chan struct{}, writeParallelism())
	var wg sync.WaitGroup
	for i, d := range dels {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			files[i], errs[i] = r.writePositionDeletes(wfs, d)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		r.t.removeFiles(slices.DeleteFunc(files, func(f iceberg.DataFile) bool { return f == nil }))
		return nil, nil, err
	}
	return files, nil, nil
}

// writePositionDeletes writes one file-scoped Parquet position delete file
// (file_path, pos; field ids 2147483546 and 2147483545) for the rows d
// deletes, recording the data file it references. iceberg-go v0.7.0 writes
// such files only inside its own Delete (the writer is unexported), so the
// file is written here with pqarrow and described with iceberg-go's
// DataFileFromMetadata, which computes the statistics and the manifest
// entry.
func (r *RowDelta) writePositionDeletes(wfs iceio.WriteFileIO, d *deltaDeletes) (iceberg.DataFile, error) {
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
	pb.Reserve(len(d.pos))
	for range d.pos {
		pb.Append(d.file.Path)
	}
	ob.AppendValues(d.pos, nil)
	cols := []arrow.Array{pb.NewArray(), ob.NewArray()}
	defer cols[0].Release()
	defer cols[1].Release()
	rec := array.NewRecordBatch(table.PositionalDeleteArrowSchema, cols, int64(len(d.pos)))
	defer rec.Release()

	out, err := wfs.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	cw := &countingWriter{w: out}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd), parquet.WithStats(true))
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
	ref := d.file.Path
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
		ReferencedDataFile: &ref,
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

// checkNoNewDeletes returns ErrConflict when a delete file committed after
// the snapshot with sequence number baseSeq (live in cur's current
// snapshot) may delete rows of one of files: another writer updated or
// deleted rows there, so the rows computed from the base are stale. This
// is Iceberg Java's validateNoConflictingDeleteFiles (RowDelta) and
// validateNoNewDeletesForDataFiles (RewriteFiles): without it a rewrite
// would drop a concurrent delete and bring the deleted rows back.
func checkNoNewDeletes(ctx context.Context, cur *table.Table, baseSeq int64, files []DataFile) error {
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
			if p, ok := deletesAny(e.DataFile(), paths); ok {
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
