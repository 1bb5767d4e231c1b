package plan

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// FrameBoundKind is the kind of one boundary of a window frame.
type FrameBoundKind int

// The frame boundaries.
const (
	UnboundedPreceding FrameBoundKind = iota
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// FrameBound is one boundary of a window frame. Offset is the number of
// rows (ROWS) or the distance of the ordering value (RANGE) of an
// OffsetPreceding or OffsetFollowing boundary.
type FrameBound struct {
	Kind   FrameBoundKind
	Offset float64
}

// Frame is a window frame: ROWS or RANGE BETWEEN Start AND End.
type Frame struct {
	Rows       bool
	Start, End FrameBound
}

// WindowFunc is one window function over one window specification.
type WindowFunc struct {
	// Fn is the function: row_number, rank, dense_rank, percent_rank,
	// cume_dist, ntile, lag, lead, first_value, last_value, nth_value, or
	// "agg" for the aggregate Agg evaluated over the frame.
	Fn string
	// Arg is the value argument of lag, lead, first_value, last_value and
	// nth_value.
	Arg expr.Expr
	// Default is lag's and lead's default (nil: NULL).
	Default expr.Expr
	// N is lag's and lead's offset, nth_value's position, ntile's buckets.
	N int64
	// IgnoreNulls skips null values (lag, lead, first_value, last_value,
	// nth_value).
	IgnoreNulls bool
	// Agg is the aggregate of Fn "agg".
	Agg *expr.AggFunc
	// PartitionBy and OrderBy are the window specification.
	PartitionBy []expr.Expr
	OrderBy     []SortKey
	Frame       Frame
	// Name is the output column's name.
	Name string
	// Call is Spark's text of the call with its window, fn(...) OVER
	// (spec), and Column the name of the select item holding it; Spark's
	// streaming refusal names both.
	Call, Column string
}

// rankingFns are the functions without a value argument.
var rankingFns = map[string]bool{
	"row_number": true, "rank": true, "dense_rank": true, "percent_rank": true, "cume_dist": true, "ntile": true,
}

// SpecKey identifies the window specification (partitioning and ordering):
// functions with the same key are evaluated over one sort of the rows.
func (f *WindowFunc) SpecKey() string {
	var b strings.Builder
	for _, p := range f.PartitionBy {
		b.WriteString(p.String())
		b.WriteString(",")
	}
	b.WriteString("|")
	for _, o := range f.OrderBy {
		fmt.Fprintf(&b, "%s %v %v,", o.Expr.String(), o.Descending, o.NullsFirst)
	}
	return b.String()
}

// Window is Spark's Window operator: it adds one column per window
// function to its input's rows, each computed over the rows of the same
// partition in the specification's order. Its output rows come ordered by
// the partitioning and ordering keys, as Spark's sort-based Window leaves
// them. Like Union, a Window is the leaf of the linear part of a plan
// above it: batch execution collects its input first. Streaming queries
// refuse it at Start (NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING).
type Window struct {
	In    Node
	Funcs []*WindowFunc
	Out   *arrow.Schema
}

// NewWindow resolves the window functions against in's schema and
// derives the output schema: in's columns, then one per function.
func NewWindow(in Node, funcs []*WindowFunc) (*Window, error) {
	s := in.Schema()
	fields := append([]arrow.Field(nil), s.Fields()...)
	for _, f := range funcs {
		t, nullable, err := f.ResultType(s)
		if err != nil {
			return nil, err
		}
		for _, p := range f.PartitionBy {
			if _, err := p.Bind(s); err != nil {
				return nil, fmt.Errorf("PARTITION BY: %w", err)
			}
		}
		for _, o := range f.OrderBy {
			if _, err := o.Expr.Bind(s); err != nil {
				return nil, fmt.Errorf("ORDER BY: %w", err)
			}
		}
		fields = append(fields, arrow.Field{Name: f.Name, Type: t, Nullable: nullable})
	}
	return &Window{In: in, Funcs: funcs, Out: arrow.NewSchema(fields, nil)}, nil
}

// ResultType is the function's result type and nullability over input s,
// as Spark types them: row_number, rank, dense_rank and ntile INT,
// percent_rank and cume_dist DOUBLE, the offset functions their
// argument's type, aggregates as grouped aggregation types them.
func (f *WindowFunc) ResultType(s *arrow.Schema) (arrow.DataType, bool, error) {
	switch f.Fn {
	case "row_number", "rank", "dense_rank", "ntile":
		return arrow.PrimitiveTypes.Int32, false, nil
	case "percent_rank", "cume_dist":
		return arrow.PrimitiveTypes.Float64, false, nil
	case "lag", "lead", "first_value", "last_value", "nth_value":
		b, err := f.Arg.Bind(s)
		if err != nil {
			return nil, false, err
		}
		if f.Default != nil {
			if _, err := f.Default.Bind(s); err != nil {
				return nil, false, err
			}
		}
		return b.Type(), true, nil
	case "agg":
		b, err := f.Agg.Bind(s)
		if err != nil {
			return nil, false, err
		}
		return b.Type, b.Nullable(), nil
	}
	return nil, false, fmt.Errorf("unknown window function %q", f.Fn)
}

// Schema is the input's columns followed by the window functions'.
func (w *Window) Schema() *arrow.Schema { return w.Out }

// Input is nil: a Window is the leaf of the linear plan above it.
func (w *Window) Input() Node { return nil }

// IsStreaming reports whether the input is a stream.
func (w *Window) IsStreaming() bool { return w.In.IsStreaming() }

// Describe is the node's line in Explain.
func (w *Window) Describe() string {
	names := make([]string, len(w.Funcs))
	for i, f := range w.Funcs {
		names[i] = f.Name
	}
	return "Window [" + strings.Join(names, ", ") + "]"
}

// RefuseWindows returns Spark's NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING
// error when a streaming plan holds a window function over a stream.
func RefuseWindows(root Node) error {
	var err error
	var walk func(n Node)
	walk = func(n Node) {
		for ; n != nil && err == nil; n = n.Input() {
			switch x := n.(type) {
			case *Window:
				if x.IsStreaming() {
					f := x.Funcs[0]
					err = fmt.Errorf("[NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING] Window function is not supported in %s (as column `%s`) on streaming DataFrames/Datasets. Structured Streaming only supports time-window aggregation using the WINDOW function. (window specification: %s)",
						strings.ToUpper(f.FuncSQL()), f.Column, strings.ToUpper(f.SpecSQL()))
					return
				}
				walk(x.In)
			case *Union:
				for _, in := range x.Inputs {
					walk(in)
				}
			case *Join:
				walk(x.Left)
				walk(x.Right)
			}
		}
	}
	walk(root)
	return err
}

// FuncSQL is the function call's text without its window, as Spark's
// message names it.
func (f *WindowFunc) FuncSQL() string {
	if i := strings.Index(f.Call, " OVER ("); i >= 0 {
		return f.Call[:i]
	}
	return f.Call
}

// SpecSQL is the window specification's text, as in the column name.
func (f *WindowFunc) SpecSQL() string {
	if i := strings.Index(f.Call, " OVER ("); i >= 0 {
		return f.Call[i+len(" OVER "):]
	}
	return "()"
}
