package lakehouse

import (
	"context"
	"fmt"
	"iter"
	"math/bits"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// Merge modes of the table property PropMergeMode: Iceberg's and Spark's
// write.merge.mode.
const (
	// PropMergeMode is the table property choosing how MERGE INTO writes
	// its changes: MergeOnRead or CopyOnWrite (the default).
	PropMergeMode = "write.merge.mode"
	// CopyOnWrite rewrites every data file holding a changed row.
	CopyOnWrite = table.WriteModeCopyOnWrite
	// MergeOnRead writes position deletes (deletion vectors on format v3)
	// for the changed rows and one new data file for their new values;
	// readers apply the deletes, and Compact folds them back.
	MergeOnRead = table.WriteModeMergeOnRead
)

// MergeMode returns the table's write.merge.mode, CopyOnWrite when unset.
// Any value other than merge-on-read (case-insensitive) is copy-on-write.
func (t *Table) MergeMode() string {
	if strings.EqualFold(strings.TrimSpace(t.cur.Load().Properties()[PropMergeMode]), MergeOnRead) {
		return MergeOnRead
	}
	return CopyOnWrite
}

// FormatVersion returns the table's Iceberg format version.
func (t *Table) FormatVersion() int { return t.cur.Load().Metadata().Version() }

// DeleteFiles returns how many delete files apply to the data file in its
// snapshot (merge-on-read deletes not yet folded back by Compact).
func (d DataFile) DeleteFiles() int {
	return len(d.task.DeleteFiles) + len(d.task.DeletionVectorFiles) + len(d.task.EqualityDeleteFiles)
}

// deleteFiles returns every delete file that applies to d.
func (d DataFile) deleteFiles() []iceberg.DataFile {
	return slices.Concat(d.task.DeleteFiles, d.task.DeletionVectorFiles, d.task.EqualityDeleteFiles)
}

// ReadFileRaw reads the columns cols (nil: all) of every row of the data
// file f (from PlanFiles) in file order, deletes NOT applied: row i of the
// result is position i of the file, the position a position delete names.
// Use DeletedPositions for the rows deleted by merge-on-read writes.
func (t *Table) ReadFileRaw(ctx context.Context, f DataFile, cols []string) ([]arrow.RecordBatch, error) {
	if f.task.File == nil {
		return nil, fmt.Errorf("lakehouse: read file of %s: file %q was not planned by PlanFiles", t.name, f.Path)
	}
	task := f.task
	task.DeleteFiles, task.DeletionVectorFiles, task.EqualityDeleteFiles = nil, nil, nil
	opts := []table.ScanOption{table.WithSnapshotID(f.SnapshotID)}
	if len(cols) > 0 {
		opts = append(opts, table.WithSelectedFields(cols...))
	}
	cur := t.cur.Load()
	_, recs, err := cur.Scan(opts...).ReadTasks(ctx, []table.FileScanTask{task})
	if err != nil {
		return nil, fmt.Errorf("lakehouse: read file of %s: %w", t.name, explainReadError(ctx, cur, []string{f.Path}, err))
	}
	out, err := collect(recs)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: read file of %s: %w", t.name, explainReadError(ctx, cur, []string{f.Path}, err))
	}
	var n int64
	for _, r := range out {
		n += r.NumRows()
	}
	if n != f.RecordCount {
		releaseRecords(out)
		return nil, fmt.Errorf("lakehouse: read file of %s: %s yielded %d rows, its manifest says %d", t.name, f.Path, n, f.RecordCount)
	}
	return out, nil
}

// Positions is a set of row positions of one data file.
type Positions struct{ words []uint64 }

// Add puts position p in the set.
func (s *Positions) Add(p int64) {
	w := int(p >> 6)
	if w >= len(s.words) {
		s.words = slices.Grow(s.words, w+1-len(s.words))[:w+1]
	}
	s.words[w] |= 1 << (uint(p) & 63)
}

// Contains reports whether position p is in the set (false on a nil set).
func (s *Positions) Contains(p int64) bool {
	if s == nil {
		return false
	}
	w := int(p >> 6)
	return w < len(s.words) && s.words[w]&(1<<(uint(p)&63)) != 0
}

// Len returns how many positions the set holds.
func (s *Positions) Len() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, w := range s.words {
		for ; w != 0; w &= w - 1 {
			n++
		}
	}
	return n
}

// all yields the positions of the set in ascending order (none for a nil
// set).
func (s *Positions) all() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		if s == nil {
			return
		}
		for i, w := range s.words {
			for ; w != 0; w &= w - 1 {
				if !yield(int64(i)<<6 | int64(bits.TrailingZeros64(w))) {
					return
				}
			}
		}
	}
}

// DeletedPositions returns the positions of the data file f (from
// PlanFiles) that its delete files delete: position delete files and
// deletion vectors. The set is nil when no delete applies. Delete files
// are immutable, so their decoded positions are cached in the Lakehouse.
// Equality deletes are refused: Atlas never writes them, and locating the
// rows they delete would need every column they name.
func (t *Table) DeletedPositions(ctx context.Context, f DataFile) (*Positions, error) {
	if f.DeleteFiles() == 0 {
		return nil, nil
	}
	fs, err := t.cur.Load().FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: read deletes of %s: %w", t.name, err)
	}
	set := &Positions{}
	for _, df := range f.deleteFiles() {
		switch {
		case df.ContentType() == iceberg.EntryContentEqDeletes:
			return nil, fmt.Errorf("lakehouse: read deletes of %s: %s is an equality delete file (written by another engine); Atlas's merge-on-read locates rows by position only: run CALL system.rewrite_data_files or atlas compact first", t.name, df.FilePath())
		case table.IsDeletionVector(df):
			bm, err := t.lh.deletes.dv(fs, df)
			if err != nil {
				return nil, fmt.Errorf("lakehouse: read deletion vector %s of %s: %w", df.FilePath(), t.name, err)
			}
			for p := range bm.Positions() {
				set.Add(int64(p))
			}
		default:
			byPath, err := t.lh.deletes.positions(ctx, fs, df.FilePath())
			if err != nil {
				return nil, fmt.Errorf("lakehouse: read position deletes %s of %s: %w", df.FilePath(), t.name, err)
			}
			for _, p := range byPath[f.Path] {
				set.Add(p)
			}
		}
	}
	return set, nil
}

// maxCachedDeletePositions bounds the positions deleteCache keeps decoded
// (8 bytes each): beyond it the oldest delete files are forgotten and read
// again when needed.
const maxCachedDeletePositions = 8 << 20

// deleteCache keeps decoded delete files (immutable once written) so that
// each merge-on-read MERGE does not re-read every earlier merge's deletes.
type deleteCache struct {
	mu    sync.Mutex
	pos   map[string]map[string][]int64 // delete file → data file → positions
	dvs   map[string]*dv.RoaringPositionBitmap
	order []string
	size  int64
}

func newDeleteCache() *deleteCache {
	return &deleteCache{pos: map[string]map[string][]int64{}, dvs: map[string]*dv.RoaringPositionBitmap{}}
}

func (c *deleteCache) put(key string, n int64) {
	c.order = append(c.order, key)
	c.size += n
	for c.size > maxCachedDeletePositions && len(c.order) > 1 {
		old := c.order[0]
		c.order = c.order[1:]
		for _, ps := range c.pos[old] {
			c.size -= int64(len(ps))
		}
		if bm := c.dvs[old]; bm != nil {
			c.size -= bm.Cardinality()
		}
		delete(c.pos, old)
		delete(c.dvs, old)
	}
}

// dv returns the bitmap of a deletion vector, reading it when not cached.
// Several vectors may share one Puffin file: the key is path and offset.
func (c *deleteCache) dv(fs iceio.IO, df iceberg.DataFile) (*dv.RoaringPositionBitmap, error) {
	key := df.FilePath()
	if off := df.ContentOffset(); off != nil {
		key = fmt.Sprintf("%s@%d", key, *off)
	}
	c.mu.Lock()
	bm, ok := c.dvs[key]
	c.mu.Unlock()
	if ok {
		return bm, nil
	}
	bm, err := dv.ReadDV(fs, df)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.dvs[key]; !ok {
		c.dvs[key] = bm
		c.put(key, bm.Cardinality())
	}
	return bm, nil
}

// positions returns the positions a Parquet position delete file deletes,
// by data file path, reading it when not cached.
func (c *deleteCache) positions(ctx context.Context, fs iceio.IO, path string) (map[string][]int64, error) {
	c.mu.Lock()
	m, ok := c.pos[path]
	c.mu.Unlock()
	if ok {
		return m, nil
	}
	m, n, err := readPositionDeletes(ctx, fs, path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pos[path]; !ok {
		c.pos[path] = m
		c.put(path, n)
	}
	return m, nil
}

// seed caches the position delete files a commit just wrote (v2), by
// path, from the deletes they were written from, so that the next merge
// does not read them back.
func (c *deleteCache) seed(groups map[string][]*deltaDeletes) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for path, group := range groups {
		if _, ok := c.pos[path]; ok {
			continue
		}
		m := make(map[string][]int64, len(group))
		var n int64
		for _, d := range group {
			m[d.file.Path] = d.pos
			n += int64(len(d.pos))
		}
		c.pos[path] = m
		c.put(path, n)
	}
}

// readPositionDeletes reads the (file_path, pos) rows of a Parquet
// position delete file.
func readPositionDeletes(ctx context.Context, fs iceio.IO, path string) (map[string][]int64, int64, error) {
	f, err := fs.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, 0, fmt.Errorf("open parquet: %w", err)
	}
	defer pr.Close()
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		return nil, 0, fmt.Errorf("open parquet: %w", err)
	}
	tbl, err := fr.ReadTable(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("read: %w", err)
	}
	defer tbl.Release()
	pathCol, posCol := -1, -1
	for i, fld := range tbl.Schema().Fields() {
		switch fld.Name {
		case "file_path":
			pathCol = i
		case "pos":
			posCol = i
		}
	}
	if pathCol < 0 || posCol < 0 {
		return nil, 0, fmt.Errorf("not a position delete file: columns %v, want file_path and pos", tbl.Schema())
	}
	out := map[string][]int64{}
	var n int64
	paths, poss := tbl.Column(pathCol).Data().Chunks(), tbl.Column(posCol).Data().Chunks()
	for k := range paths {
		ps, ok1 := paths[k].(*array.String)
		pp, ok2 := poss[k].(*array.Int64)
		if !ok1 || !ok2 {
			return nil, 0, fmt.Errorf("position delete columns are %s and %s, want string and int64", paths[k].DataType(), poss[k].DataType())
		}
		for i := 0; i < ps.Len(); i++ {
			if ps.IsNull(i) || pp.IsNull(i) {
				continue
			}
			p := ps.Value(i)
			out[p] = append(out[p], pp.Value(i))
			n++
		}
	}
	// Data file paths are shared with the rows: copy them out of the
	// Arrow buffers released with the table.
	clean := make(map[string][]int64, len(out))
	for p, v := range out {
		clean[strings.Clone(p)] = v
	}
	return clean, n, nil
}
