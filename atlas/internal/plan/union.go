package plan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Union is Spark's Union (UNION ALL, DataFrame.union): the rows of each
// input in turn, matched by position. Column names come from the first
// input; each column's type is the wider of the inputs' types (int and
// bigint make bigint, a number and a string make string), as Spark's
// WidenSetOperationTypes. A Union of one input materialises a batch
// subquery, so that a query over it may aggregate again.
//
// A Union is the leaf of the linear part of a plan above it (its Input is
// nil): batch execution collects each input with its own plan first.
type Union struct {
	Inputs []Node
	// Subquery marks a one-input Union standing for a subquery in FROM or a
	// common table expression.
	Subquery bool
	Out      *arrow.Schema
}

// NewUnion resolves the inputs' common schema.
func NewUnion(inputs []Node) (*Union, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("union needs at least one input")
	}
	first := inputs[0].Schema()
	fields := append([]arrow.Field(nil), first.Fields()...)
	for i := range fields {
		// The first input's watermark delay stays (Spark's Union outputs
		// its first child's attributes): an aggregation over a union of
		// watermarked streams is evicted by the watermark.
		md := arrow.Metadata{}
		if v, ok := fields[i].Metadata.GetValue(expr.MetaWatermarkDelay); ok && inputs[0].IsStreaming() {
			md = arrow.NewMetadata([]string{expr.MetaWatermarkDelay}, []string{v})
		}
		fields[i].Metadata = md
	}
	for k, in := range inputs[1:] {
		s := in.Schema()
		if s.NumFields() != len(fields) {
			return nil, fmt.Errorf("[NUM_COLUMNS_MISMATCH] UNION can only be performed on inputs with the same number of columns, but the first input has %d columns and the %s input has %d columns", len(fields), ordinal(k+2), s.NumFields())
		}
		for i, f := range s.Fields() {
			t, ok := widerType(fields[i].Type, f.Type)
			if !ok {
				return nil, fmt.Errorf("[INCOMPATIBLE_COLUMN_TYPE] UNION can only be performed on inputs with compatible column types: column %d (%s) is %s in the first input and %s in the %s input; cast one of them", i+1, fields[i].Name, types.Name(fields[i].Type), types.Name(f.Type), ordinal(k+2))
			}
			fields[i].Type = t
			fields[i].Nullable = fields[i].Nullable || f.Nullable
		}
	}
	return &Union{Inputs: append([]Node(nil), inputs...), Out: arrow.NewSchema(fields, nil)}, nil
}

// NewSubquery wraps a batch plan as a one-input Union, so that the plan
// above it runs over its collected rows.
func NewSubquery(in Node) *Union {
	u, _ := NewUnion([]Node{in})
	u.Subquery = true
	// keep the input's field metadata (event-time tags, qualifiers)
	u.Out = in.Schema()
	return u
}

func ordinal(n int) string {
	switch n {
	case 2:
		return "second"
	case 3:
		return "third"
	}
	return fmt.Sprintf("%dth", n)
}

// widerType is the type both a and b convert to in a UNION.
func widerType(a, b arrow.DataType) (arrow.DataType, bool) {
	switch {
	case arrow.TypeEqual(a, b):
		return a, true
	case a.ID() == arrow.NULL:
		return b, true
	case b.ID() == arrow.NULL:
		return a, true
	case isNumeric(a) && isNumeric(b):
		if isFrac(a) || isFrac(b) {
			return arrow.PrimitiveTypes.Float64, true
		}
		return arrow.PrimitiveTypes.Int64, true
	case a.ID() == arrow.TIMESTAMP && b.ID() == arrow.TIMESTAMP:
		return types.Timestamp, true
	case a.ID() == arrow.STRING && isFlat(b), b.ID() == arrow.STRING && isFlat(a):
		return arrow.BinaryTypes.String, true
	}
	return nil, false
}

func isNumeric(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64:
		return true
	}
	return false
}

func isFrac(t arrow.DataType) bool { return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 }

func isFlat(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.MAP:
		return false
	}
	return true
}

func (u *Union) Schema() *arrow.Schema { return u.Out }
func (u *Union) Input() Node           { return nil }
func (u *Union) IsStreaming() bool {
	for _, in := range u.Inputs {
		if in.IsStreaming() {
			return true
		}
	}
	return false
}
func (u *Union) Describe() string {
	if u.Subquery {
		return "Subquery [" + fieldNames(u.Out) + "]"
	}
	return "Union [" + fieldNames(u.Out) + "]"
}

// NeedsSubquery reports whether a batch plan must be materialised before
// another query can build on it: it aggregates, sorts, limits or is itself
// a union or join, which the linear executor runs only as a leaf.
func NeedsSubquery(n Node) bool {
	if n.IsStreaming() {
		return false
	}
	for ; n != nil; n = n.Input() {
		switch n.(type) {
		case *Aggregate, *Sort, *Limit:
			return true
		}
	}
	return false
}
