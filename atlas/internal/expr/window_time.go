package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// WindowTime is Spark's window_time(windowColumn): the time a time window
// stands for, its end minus one microsecond (the latest time inside it),
// so that a window of windows can be built on it ("Representation of the
// time for time window" in the Structured Streaming guide). window(w, ...)
// over a window column uses it too.
type WindowTime struct{ X Expr }

func (e *WindowTime) String() string { return "window_time(" + e.X.String() + ")" }

// Bind checks the argument is a window column: a struct with a timestamp
// field end.
func (e *WindowTime) Bind(s *arrow.Schema) (Bound, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, err
	}
	return bindWindowTime(e, x)
}

func bindWindowTime(e fmt.Stringer, x Bound) (Bound, error) {
	st, ok := x.Type().(*arrow.StructType)
	if !ok {
		return nil, fmt.Errorf("%s: the argument must be a window column (struct<start: timestamp, end: timestamp>), got %s", e, types.Name(x.Type()))
	}
	end, ok := st.FieldIdx("end")
	if !ok || st.Field(end).Type.ID() != arrow.TIMESTAMP {
		return nil, fmt.Errorf("%s: the argument must be a window column (struct<start: timestamp, end: timestamp>), got %s", e, types.Name(x.Type()))
	}
	return &windowTimeBound{x: x, end: end}, nil
}

type windowTimeBound struct {
	x   Bound
	end int
}

func (b *windowTimeBound) Type() arrow.DataType { return types.Timestamp }
func (b *windowTimeBound) Nullable() bool       { return true }
func (b *windowTimeBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	a, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	st := a.(*array.Struct)
	ends := st.Field(b.end).(*array.Timestamp)
	out := array.NewTimestampBuilder(c.Mem, types.Timestamp)
	defer out.Release()
	out.Reserve(st.Len())
	for i := 0; i < st.Len(); i++ {
		if st.IsNull(i) || ends.IsNull(i) {
			out.AppendNull()
			continue
		}
		out.Append(ends.Value(i) - 1)
	}
	return out.NewArray(), nil
}
