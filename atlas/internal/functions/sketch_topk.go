package functions

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sketch"
)

// topKDefs is approx_top_k_estimate(state[, k]): the k (default 5) most
// frequent items of the state approx_top_k_accumulate or
// approx_top_k_combine returned, as approx_top_k returns them.
func topKDefs() []*Def {
	d := &Def{Name: "approx_top_k_estimate", Group: "sketch", MinArgs: 1, MaxArgs: 2,
		Build: func(name string, args []expr.Expr) (expr.Expr, error) {
			return &topKEstimate{args: args}, nil
		}}
	return []*Def{named(d, 2, "5")}
}

type topKEstimate struct{ args []expr.Expr }

func (e *topKEstimate) String() string {
	names := make([]string, len(e.args))
	for i, a := range e.args {
		names[i] = a.String()
	}
	n, _ := ColumnName("approx_top_k_estimate", names)
	return n
}

// Bind checks the state's type: Spark's struct<sketch: binary,
// maxItemsTracked: int, itemDataType: the item type, itemDataTypeDDL:
// string>.
func (e *topKEstimate) Bind(s *arrow.Schema) (expr.Bound, error) {
	state, err := e.args[0].Bind(s)
	if err != nil {
		return nil, err
	}
	st, ok := state.Type().(*arrow.StructType)
	if !ok || st.NumFields() != 4 || st.Field(0).Type.ID() != arrow.BINARY || !sketch.TopKItemType(st.Field(2).Type) {
		return nil, fmt.Errorf("[DATATYPE_MISMATCH] approx_top_k_estimate needs the state approx_top_k_accumulate returns, got %s", state.Type())
	}
	out := &topKEstimateBound{state: state, k: 5, typ: sketch.TopKResultType(st.Field(2).Type)}
	if len(e.args) == 2 {
		lit, ok := e.args[1].(*expr.Literal)
		k, isInt := literalInt(lit, ok)
		if !isInt {
			return nil, fmt.Errorf("[DATATYPE_MISMATCH.NON_FOLDABLE_INPUT] k of approx_top_k_estimate must be an integer literal, got %s", e.args[1])
		}
		if k <= 0 {
			return nil, fmt.Errorf("[APPROX_TOP_K_NON_POSITIVE_ARG] The value of k in approx_top_k_estimate must be a positive integer, but got %d. SQLSTATE: 22023", k)
		}
		out.k = int(k)
	}
	return out, nil
}

func literalInt(l *expr.Literal, ok bool) (int64, bool) {
	if !ok {
		return 0, false
	}
	switch v := l.Value.(type) {
	case int64:
		return v, true
	case int32:
		return int64(v), true
	}
	return 0, false
}

type topKEstimateBound struct {
	state expr.Bound
	k     int
	typ   arrow.DataType
}

func (b *topKEstimateBound) Type() arrow.DataType { return b.typ }
func (b *topKEstimateBound) Nullable() bool       { return b.state.Nullable() }

// Eval decodes each row's sketch and appends its top k.
func (b *topKEstimateBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	arr, err := b.state.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer arr.Release()
	st := arr.(*array.Struct)
	bin := st.Field(0).(*array.Binary)
	mem := c.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	out := array.NewBuilder(mem, b.typ).(*array.ListBuilder)
	defer out.Release()
	for i := range st.Len() {
		if st.IsNull(i) || bin.IsNull(i) {
			out.AppendNull()
			continue
		}
		t, err := sketch.DecodeTopK(bin.Value(i))
		if err != nil {
			return nil, fmt.Errorf("[APPROX_TOP_K_INVALID_STATE] approx_top_k_estimate: %w", err)
		}
		if err := sketch.AppendTopK(out, t, b.k); err != nil {
			return nil, fmt.Errorf("approx_top_k_estimate: %w", err)
		}
	}
	return out.NewArray(), nil
}
