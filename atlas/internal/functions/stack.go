package functions

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// stack is stack(n, v1, ..., vk), Spark's Stack: the values laid out in n
// rows of ceil(k/n) columns named col0, col1, ..., the last row padded
// with NULL. It is inline over the array of row structs stackRows makes.
func stack(name string, a []expr.Expr) (expr.Expr, error) {
	n, err := intLit(name, a, 0, "the number of rows")
	if err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE] Cannot resolve stack: the number of rows must be a positive integer, got %d", n)
	}
	return &expr.Explode{X: &stackRows{n: int(n), args: a}, Inline: true}, nil
}

// stackRows evaluates to one array per input row: the n structs of
// stack's rows.
type stackRows struct {
	n    int
	args []expr.Expr // args[0] is n
}

func (s *stackRows) String() string {
	names := make([]string, len(s.args))
	for i, a := range s.args {
		names[i] = a.String()
	}
	return "stack(" + strings.Join(names, ", ") + ")"
}

// Bind types each column as its first value that is not NULL (Spark's
// Stack.findDataType) and casts that column's NULL values to it; values
// of another type are Spark's STACK_COLUMN_DIFF_TYPES.
func (s *stackRows) Bind(sc *arrow.Schema) (expr.Bound, error) {
	vals := make([]expr.Bound, len(s.args)-1)
	for i, a := range s.args[1:] {
		b, err := a.Bind(sc)
		if err != nil {
			return nil, err
		}
		vals[i] = b
	}
	cols := (len(vals) + s.n - 1) / s.n
	fields := make([]arrow.Field, cols)
	for c := range fields {
		fields[c] = arrow.Field{Name: fmt.Sprintf("col%d", c), Type: arrow.Null, Nullable: true}
		for i := c; i < len(vals); i += cols {
			if vals[i].Type().ID() != arrow.NULL {
				fields[c].Type = vals[i].Type()
				break
			}
		}
	}
	for i, v := range vals {
		want := fields[i%cols].Type
		switch {
		case arrow.TypeEqual(v.Type(), want):
		case v.Type().ID() == arrow.NULL:
			vals[i] = expr.CastBound(v, want)
		default:
			return nil, fmt.Errorf("[DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES] Cannot resolve %s: the data type of column %d (%s) differs from that of its first value (%s). SQLSTATE: 42K09",
				s, i%cols, types.Name(v.Type()), types.Name(want))
		}
	}
	elem := arrow.StructOf(fields...)
	return &stackBound{n: s.n, vals: vals, elem: elem, typ: arrow.ListOf(elem)}, nil
}

type stackBound struct {
	n    int
	vals []expr.Bound
	elem *arrow.StructType
	typ  *arrow.ListType
}

func (b *stackBound) Type() arrow.DataType { return b.typ }
func (b *stackBound) Nullable() bool       { return false }

// Eval builds each struct field by taking, for input row r and stack row
// j, row r of value j*cols+f from the field's values laid end to end (a
// column of NULLs for the padding).
func (b *stackBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	mem := c.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	rows := int(rec.NumRows())
	cols := b.elem.NumFields()
	var owned []arrow.Array
	defer func() {
		for _, a := range owned {
			a.Release()
		}
	}()
	idx := array.NewInt32Builder(mem)
	defer idx.Release()
	for r := 0; r < rows; r++ {
		for j := 0; j < b.n; j++ {
			idx.Append(int32(j*rows + r))
		}
	}
	take := idx.NewInt32Array()
	owned = append(owned, take)
	fieldArrs := make([]arrow.Array, cols)
	for f := 0; f < cols; f++ {
		parts := make([]arrow.Array, b.n)
		for j := 0; j < b.n; j++ {
			var part arrow.Array
			if i := j*cols + f; i < len(b.vals) {
				v, err := b.vals[i].Eval(c, rec)
				if err != nil {
					return nil, err
				}
				part = v
			} else {
				part = array.MakeArrayOfNull(mem, b.elem.Field(f).Type, rows)
			}
			owned = append(owned, part)
			parts[j] = part
		}
		all, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, fmt.Errorf("stack: %w", err)
		}
		owned = append(owned, all)
		if fieldArrs[f], err = compute.TakeArray(c.Context, all, take); err != nil {
			return nil, fmt.Errorf("stack: %w", err)
		}
		owned = append(owned, fieldArrs[f])
	}
	st, err := array.NewStructArrayWithFields(fieldArrs, b.elem.Fields())
	if err != nil {
		return nil, fmt.Errorf("stack: %w", err)
	}
	owned = append(owned, st)
	offsets := make([]int32, rows+1)
	for r := range offsets {
		offsets[r] = int32(r * b.n)
	}
	data := array.NewData(b.typ, rows, []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets))},
		[]arrow.ArrayData{st.Data()}, 0, 0)
	defer data.Release()
	return array.NewListData(data), nil
}
