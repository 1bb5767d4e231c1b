package functions

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// toTimestampKindDefs are to_timestamp_ltz (to_timestamp, whose result
// is Spark's TIMESTAMP_LTZ), to_timestamp_ntz (the same parse, the wall
// clock kept without a zone) and try_to_date (to_date, NULL for text
// that does not parse).
func toTimestampKindDefs() []*Def {
	ntz := &Def{Name: "to_timestamp_ntz", Group: "datetime", MinArgs: 1, MaxArgs: 2, Build: func(name string, a []expr.Expr) (expr.Expr, error) {
		e, err := toTimestamp(false)(name, a)
		if err != nil {
			return nil, err
		}
		return &ntzOf{x: e, name: name, args: a}, nil
	}}
	return []*Def{
		{Name: "to_timestamp_ltz", Group: "datetime", MinArgs: 1, MaxArgs: 2, ColumnName: plainName, Build: toTimestamp(false)},
		ntz,
		row("try_to_date", "datetime", 1, 2, &rowImpl{resolve: toDateSig, mayBeNull: true, eval: func(v []any) (any, error) {
			d, err := toDate(v)
			if err != nil {
				return nil, nil
			}
			return d, nil
		}}),
	}
}

// plainName is name(arg1, arg2, ...).
func plainName(name string, a []string) string { return withDefaults(0)(name, a) }

// ntzOf is a timestamp expression whose result is read as TIMESTAMP_NTZ:
// the wall clock in the session time zone, kept without a zone.
type ntzOf struct {
	x    expr.Expr
	name string
	args []expr.Expr
}

func (e *ntzOf) String() string {
	names := make([]string, len(e.args))
	for i, a := range e.args {
		names[i] = a.String()
	}
	return plainName(e.name, names)
}

// Bind binds the timestamp expression.
func (e *ntzOf) Bind(s *arrow.Schema) (expr.Bound, error) {
	b, err := e.x.Bind(s)
	if err != nil {
		return nil, err
	}
	return &ntzBound{x: b}, nil
}

type ntzBound struct{ x expr.Bound }

func (b *ntzBound) Type() arrow.DataType { return tNTZ }
func (b *ntzBound) Nullable() bool       { return b.x.Nullable() }

// Eval shifts each instant to its wall clock in the session time zone.
func (b *ntzBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	ts := in.(interface {
		arrow.Array
		Value(int) arrow.Timestamp
	})
	bld := array.NewTimestampBuilder(c.Mem, tNTZ)
	defer bld.Release()
	loc := c.Zone()
	for i := range ts.Len() {
		if ts.IsNull(i) {
			bld.AppendNull()
			continue
		}
		bld.Append(arrow.Timestamp(wallIn(time.UnixMicro(int64(ts.Value(i))), loc).UnixMicro()))
	}
	return bld.NewArray(), nil
}
