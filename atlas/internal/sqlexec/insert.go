package sqlexec

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// insert runs INSERT INTO|OVERWRITE. Without a column list the values
// map to the table's columns by position, as in Spark; with one, by the
// listed names, the other columns being null. Values are cast to the
// column types.
func insert(ctx context.Context, s Session, st *parser.Insert) (plan.Node, error) {
	start := time.Now()
	name := sql.TableName(st.Table)
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return nil, err
	}
	tbl, err := lh.LoadTable(ctx, name)
	if err != nil {
		return nil, atName(st.Table, name, err)
	}
	target := tbl.Schema()
	cols := make([]int, 0, target.NumFields()) // target column of each value
	if len(st.Columns) == 0 {
		for i := range target.NumFields() {
			cols = append(cols, i)
		}
	} else {
		for _, c := range st.Columns {
			i := expr.FieldIndex(target, c.Parts[len(c.Parts)-1])
			if i < 0 {
				return nil, errAtNode(c, "table %s has no column %s", name, c.SQL())
			}
			cols = append(cols, i)
		}
	}
	c := expr.NewCtx(ctx)
	var in arrow.RecordBatch
	if st.Query != nil {
		n, err := sql.PlanSelect(st.Query, relations(ctx, s))
		if err != nil {
			return nil, err
		}
		schema, recs, err := exec.Collect(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("insert into %s: %w", name, err)
		}
		in, err = exec.Concat(c, schema, recs)
		releaseAll(recs)
		if err != nil {
			return nil, err
		}
	} else if in, err = valuesRecord(c, st.Rows); err != nil {
		return nil, err
	}
	defer in.Release()
	if int(in.NumCols()) != len(cols) {
		return nil, errAtNode(st, "INSERT INTO %s: %d values per row for %d columns", name, in.NumCols(), len(cols))
	}
	out := make([]arrow.Array, target.NumFields())
	for j, i := range cols {
		if out[i] != nil {
			return nil, errAtNode(st, "INSERT INTO %s names column %s twice", name, target.Field(i).Name)
		}
		a := in.Column(j)
		if arrow.TypeEqual(a.DataType(), target.Field(i).Type) {
			a.Retain()
		} else if a, err = expr.StoreAssign(c, a, target.Field(i).Type, target.Field(i).Name); err != nil {
			return nil, errAtNode(st, "INSERT INTO %s: column %s: %v", name, target.Field(i).Name, err)
		}
		out[i] = a
	}
	for i, a := range out {
		if a == nil {
			out[i] = array.MakeArrayOfNull(c.Mem, target.Field(i).Type, int(in.NumRows()))
		}
	}
	rec := array.NewRecordBatch(target, out, in.NumRows())
	for _, a := range out {
		a.Release()
	}
	defer rec.Release()
	commit := s.NextWrite("insert")
	var committed bool
	if st.Overwrite {
		committed, err = tbl.OverwriteBatch(ctx, []arrow.RecordBatch{rec}, commit)
	} else {
		committed, err = tbl.AppendBatch(ctx, []arrow.RecordBatch{rec}, commit)
	}
	if err != nil {
		return nil, fmt.Errorf("insert into %s: %w", name, err)
	}
	n := rec.NumRows()
	if !committed {
		n = 0
	}
	s.NoteInsert(name, n, !committed, time.Since(start))
	return int64Scan("insert", []string{"num_affected_rows", "num_inserted_rows"}, []int64{n, n}, nil), nil
}

// valuesRecord evaluates the rows of VALUES into one record with columns
// col1, col2, ... each typed by the common type of its values in every row,
// as Spark's VALUES: (1, 10), (2, 2.5) makes the second column a double,
// so 2.5 is not cut to the first row's int.
func valuesRecord(c *expr.Ctx, rows [][]parser.Expr) (arrow.RecordBatch, error) {
	empty := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer empty.Release()
	width := len(rows[0])
	parts := make([][]arrow.Array, width)
	for _, row := range rows {
		if len(row) != width {
			return nil, errAtNode(row[0], "VALUES rows must have the same number of values: %d here, %d in the first row", len(row), width)
		}
		for j, e := range row {
			x, err := sql.Expr(e)
			if err != nil {
				return nil, err
			}
			b, err := x.Bind(empty.Schema())
			if err != nil {
				return nil, errAtNode(e, "%v", err)
			}
			a, err := b.Eval(c, empty)
			if err != nil {
				return nil, errAtNode(e, "%v", err)
			}
			parts[j] = append(parts[j], a)
		}
	}
	fields := make([]arrow.Field, width)
	cols := make([]arrow.Array, width)
	for j := range parts {
		ts := make([]arrow.DataType, len(parts[j]))
		for k, a := range parts[j] {
			ts[k] = a.DataType()
		}
		typ, err := expr.CommonType(ts)
		if err != nil {
			releaseParts(parts[j:])
			releaseArrays(cols[:j])
			return nil, errAtNode(rows[0][j], "VALUES column %d: %v", j+1, err)
		}
		for k, a := range parts[j] {
			if !arrow.TypeEqual(a.DataType(), typ) {
				cast, err := expr.CastArray(c, a, typ)
				if err != nil {
					releaseParts(parts[j:])
					releaseArrays(cols[:j])
					return nil, errAtNode(rows[k][j], "VALUES: %v", err)
				}
				a.Release()
				parts[j][k] = cast
			}
		}
		col, err := array.Concatenate(parts[j], c.Mem)
		releaseArrays(parts[j])
		if err != nil {
			return nil, fmt.Errorf("VALUES column %d: %w", j+1, err)
		}
		fields[j] = arrow.Field{Name: fmt.Sprintf("col%d", j+1), Type: typ, Nullable: true}
		cols[j] = col
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(rows)))
	releaseArrays(cols)
	return rec, nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

func releaseParts(parts [][]arrow.Array) {
	for _, p := range parts {
		releaseArrays(p)
	}
}
