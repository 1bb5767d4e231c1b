package engine

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// DataFrameNaFunctions handles missing values, as df.na.
type DataFrameNaFunctions struct{ df *DataFrame }

// Na returns the missing-value functions of df.
func (df *DataFrame) Na() *DataFrameNaFunctions { return &DataFrameNaFunctions{df: df} }

// pickColumns resolves names (case-insensitively) to df's columns; none
// means every column.
func (df *DataFrame) pickColumns(names []string) ([]int, error) {
	fields := df.node.Schema().Fields()
	if len(names) == 0 {
		return span32(len(fields)), nil
	}
	var out []int
	for _, n := range names {
		i := fieldIndex(fields, n)
		if i < 0 {
			return nil, unresolvedColumn(n, fieldNames(fields))
		}
		out = append(out, i)
	}
	return out, nil
}

func span32(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func fieldIndex(fields []arrow.Field, name string) int {
	for i, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

func isFloat(t arrow.DataType) bool { return t.ID() == arrow.FLOAT32 || t.ID() == arrow.FLOAT64 }

func isNumber(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128:
		return true
	}
	return false
}

// missing is true where column i is null, or NaN for a floating-point
// column (Spark's na functions treat NaN as missing).
func missing(f arrow.Field, i int) Column {
	c := colAt(f.Name, i)
	if isFloat(f.Type) {
		return c.IsNull().Or(c.Eq(Lit(math.NaN())))
	}
	return c.IsNull()
}

// Drop drops the rows with fewer than minNonNulls values that are neither
// null nor NaN among cols (every column when none), as
// df.na.drop(thresh=minNonNulls, subset=cols); minNonNulls < 0 means all
// of them (how="any").
func (n *DataFrameNaFunctions) Drop(minNonNulls int, cols ...string) *DataFrame {
	df := n.df
	if df.failed() {
		return df
	}
	idx, err := df.pickColumns(cols)
	if err != nil {
		return df.with(nil, fmt.Errorf("na.drop: %w", err))
	}
	if minNonNulls < 0 {
		minNonNulls = len(idx)
	}
	if minNonNulls == 0 || len(idx) == 0 {
		return df
	}
	fields := df.node.Schema().Fields()
	var present Column
	for k, i := range idx {
		one := When(missing(fields[i], i), int64(0)).Otherwise(int64(1))
		if k == 0 {
			present = one
			continue
		}
		present = present.Plus(one)
	}
	return df.Where(present.Geq(int64(minNonNulls)))
}

// fillable tells whether a fill or replace value of Go type v applies to a
// column of type t: numbers to numeric columns, strings to string columns,
// booleans to boolean columns.
func fillable(v any, t arrow.DataType) bool {
	switch v.(type) {
	case int64, int32, int, float64, float32:
		return isNumber(t)
	case string:
		return t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING
	case bool:
		return t.ID() == arrow.BOOL
	}
	return false
}

// Fill replaces nulls (and NaN in floating-point columns), as df.na.fill:
// one value fills every column of its kind among cols (every column when
// none; a column of another kind is left alone); several values fill cols
// pairwise (fill({col: value})). The value is cast to the column's type.
func (n *DataFrameNaFunctions) Fill(values []any, cols ...string) *DataFrame {
	df := n.df
	if df.failed() {
		return df
	}
	if len(values) == 0 {
		return df.with(nil, fmt.Errorf("na.fill: a value is required"))
	}
	idx, err := df.pickColumns(cols)
	if err != nil {
		return df.with(nil, fmt.Errorf("na.fill: %w", err))
	}
	if len(values) > 1 && len(values) != len(idx) {
		return df.with(nil, fmt.Errorf("na.fill: %d values for %d columns", len(values), len(idx)))
	}
	fill := map[int]any{}
	for k, i := range idx {
		v := values[0]
		if len(values) > 1 {
			v = values[k]
		} else if !fillable(v, df.node.Schema().Field(i).Type) {
			continue
		}
		fill[i] = v
	}
	items := make([]any, 0, df.node.Schema().NumFields())
	for i, f := range df.node.Schema().Fields() {
		v, ok := fill[i]
		if !ok {
			items = append(items, colAt(f.Name, i))
			continue
		}
		items = append(items, When(missing(f, i), Lit(v).Cast(types.SQLName(f.Type))).Otherwise(colAt(f.Name, i)).Alias(f.Name))
	}
	return df.Select(items...)
}

// Replacement is one old value → new value of Replace (nil is null).
type Replacement struct{ Old, New any }

// Replace replaces values, as df.na.replace(to_replace, value, subset):
// in each column among cols (every column when none) whose kind matches
// the old values (numbers, strings or booleans), a cell equal to an old
// value becomes its new value, cast to the column's type.
func (n *DataFrameNaFunctions) Replace(repl []Replacement, cols ...string) *DataFrame {
	df := n.df
	if df.failed() || len(repl) == 0 {
		return df
	}
	idx, err := df.pickColumns(cols)
	if err != nil {
		return df.with(nil, fmt.Errorf("na.replace: %w", err))
	}
	var kind any
	for _, r := range repl {
		if r.Old != nil {
			kind = r.Old
			break
		}
	}
	target := map[int]bool{}
	for _, i := range idx {
		if kind == nil || fillable(kind, df.node.Schema().Field(i).Type) {
			target[i] = true
		}
	}
	items := make([]any, 0, df.node.Schema().NumFields())
	for i, f := range df.node.Schema().Fields() {
		c := colAt(f.Name, i)
		if !target[i] {
			items = append(items, c)
			continue
		}
		var out Column
		for k, r := range repl {
			cond := c.IsNull()
			if r.Old != nil {
				cond = c.Eq(Lit(r.Old))
			}
			val := Lit(r.New).Cast(types.SQLName(f.Type))
			if k == 0 {
				out = When(cond, val)
				continue
			}
			out = out.When(cond, val)
		}
		items = append(items, out.Otherwise(c).Alias(f.Name))
	}
	return df.Select(items...)
}
