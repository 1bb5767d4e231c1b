package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// MakeStruct builds a struct column from expressions, one field each:
// Spark's struct(a, b) (fields named after the columns, col1, col2, ...
// for other expressions) and named_struct('x', a, 'y', b). The struct
// itself is never null.
type MakeStruct struct {
	Names []string
	Args  []Expr
	// Text is Spark's name for the call, such as "struct(a, b)".
	Text string
}

func (e *MakeStruct) String() string {
	if e.Text != "" {
		return e.Text
	}
	return "struct(" + joinExprs(e.Args) + ")"
}

// Bind resolves every field.
func (e *MakeStruct) Bind(s *arrow.Schema) (Bound, error) {
	if len(e.Names) != len(e.Args) {
		return nil, fmt.Errorf("%s: %d names for %d fields", e, len(e.Names), len(e.Args))
	}
	b := &structBound{args: make([]Bound, len(e.Args))}
	fields := make([]arrow.Field, len(e.Args))
	seen := map[string]bool{}
	for i, a := range e.Args {
		x, err := a.Bind(s)
		if err != nil {
			return nil, err
		}
		if seen[strings.ToLower(e.Names[i])] {
			// Spark allows duplicate names in a struct; Arrow lookups would
			// find only the first, so refuse rather than lose a field.
			return nil, fmt.Errorf("%s: the field name %q is used twice", e, e.Names[i])
		}
		seen[strings.ToLower(e.Names[i])] = true
		b.args[i] = x
		fields[i] = arrow.Field{Name: e.Names[i], Type: x.Type(), Nullable: x.Nullable()}
	}
	b.typ = arrow.StructOf(fields...)
	return b, nil
}

type structBound struct {
	args []Bound
	typ  *arrow.StructType
}

func (b *structBound) Type() arrow.DataType { return b.typ }
func (b *structBound) Nullable() bool       { return false }
func (b *structBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	cols := make([]arrow.Array, len(b.args))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, a := range b.args {
		col, err := a.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		cols[i] = col
	}
	data := make([]arrow.ArrayData, len(cols))
	for i, col := range cols {
		data[i] = col.Data()
	}
	d := array.NewData(b.typ, int(rec.NumRows()), []*memory.Buffer{nil}, data, 0, 0)
	defer d.Release()
	return array.NewStructData(d), nil
}
