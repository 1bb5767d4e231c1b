package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// ParquetSchema reads the Arrow schema of a Parquet file, for a stream
// given no schema.
func ParquetSchema(path string) (*arrow.Schema, error) {
	pf, err := pq.OpenParquetFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("parquet source: %s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("parquet source: %s: %w", path, err)
	}
	s, err := fr.Schema()
	if err != nil {
		return nil, fmt.Errorf("parquet source: %s: %w", path, err)
	}
	fields := make([]arrow.Field, len(s.Fields()))
	for i, f := range s.Fields() {
		f.Nullable = true
		f.Metadata = arrow.Metadata{}
		if ts, ok := f.Type.(*arrow.TimestampType); ok && !arrow.TypeEqual(ts, types.Timestamp) {
			f.Type = types.Timestamp
		}
		fields[i] = f
	}
	return arrow.NewSchema(fields, nil), nil
}

// readParquet reads a Parquet file with arrow-go's pqarrow and matches its
// columns to the schema by name (exactly, else ignoring case, as Spark's
// default): a column the file lacks is null, a column of another type is
// cast (timestamps of any unit become microseconds), a column that does
// not cast is an error naming the file and the column.
func (r *Reader) readParquet(ctx context.Context, path string, fn func(arrow.RecordBatch) error) error {
	pf, err := pq.OpenParquetFile(path, false)
	if err != nil {
		return fmt.Errorf("parquet source: %s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, r.mem)
	if err != nil {
		return fmt.Errorf("parquet source: %s: %w", path, err)
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("parquet source: %s: %w", path, err)
	}
	defer rr.Release()
	c := &expr.Ctx{Context: ctx, Mem: r.mem}
	for {
		rec, err := rr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("parquet source: %s: %w", path, err)
		}
		out, err := r.conform(c, path, rec)
		if err != nil {
			return err
		}
		err = fn(out)
		out.Release()
		if err != nil {
			return err
		}
	}
}

func (r *Reader) conform(c *expr.Ctx, path string, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	fs := rec.Schema()
	cols := make([]arrow.Array, 0, len(r.schema.Fields()))
	release := func() {
		for _, a := range cols {
			a.Release()
		}
	}
	for _, f := range r.schema.Fields() {
		idx := fs.FieldIndices(f.Name)
		if len(idx) == 0 {
			for i, g := range fs.Fields() {
				if strings.EqualFold(g.Name, f.Name) {
					idx = []int{i}
					break
				}
			}
		}
		if len(idx) == 0 {
			cols = append(cols, array.MakeArrayOfNull(r.mem, f.Type, int(rec.NumRows())))
			continue
		}
		a, err := conformColumn(c, rec.Column(idx[0]), f.Type)
		if err != nil {
			release()
			return nil, fmt.Errorf("parquet source: %s: column %s is %s in the file and cannot be read as %s: %w", path, f.Name, types.SQLName(rec.Column(idx[0]).DataType()), types.SQLName(f.Type), err)
		}
		cols = append(cols, a)
	}
	out := array.NewRecordBatch(r.schema, cols, rec.NumRows())
	release()
	return out, nil
}

func conformColumn(c *expr.Ctx, a arrow.Array, t arrow.DataType) (arrow.Array, error) {
	from, ok1 := a.DataType().(*arrow.TimestampType)
	to, ok2 := t.(*arrow.TimestampType)
	if ok1 && ok2 && from.Unit != to.Unit {
		ts := a.(*array.Timestamp)
		b := array.NewTimestampBuilder(c.Mem, to)
		defer b.Release()
		num, den := unitRatio(from.Unit, to.Unit)
		for i := 0; i < ts.Len(); i++ {
			if ts.IsNull(i) {
				b.AppendNull()
				continue
			}
			v := int64(ts.Value(i))
			if den > 1 {
				v = floorDiv(v, den)
			}
			b.Append(arrow.Timestamp(v * num))
		}
		return b.NewArray(), nil
	}
	if ok1 && ok2 {
		d := array.NewData(t, a.Len(), a.Data().Buffers(), nil, a.NullN(), a.Data().Offset())
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	return expr.CastArray(c, a, t)
}

func unitRatio(from, to arrow.TimeUnit) (num, den int64) {
	per := map[arrow.TimeUnit]int64{arrow.Second: 1, arrow.Millisecond: 1e3, arrow.Microsecond: 1e6, arrow.Nanosecond: 1e9}
	if per[to] >= per[from] {
		return per[to] / per[from], 1
	}
	return 1, per[from] / per[to]
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
