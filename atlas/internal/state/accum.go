package state

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// accumulator keeps one aggregate function's partial result for every group
// in plain typed slices indexed by group id, so updates are tight loops
// over Arrow columns.
type accumulator interface {
	// grow makes room for groups up to n.
	grow(n int)
	// update folds input value rows[k] into group gids[k], for all k; arg
	// is nil for count(*).
	update(arg arrow.Array, rows []int32, gids []int32) error
	// appendResult appends group g's result to b.
	appendResult(b array.Builder, g int32)
	// move copies group from into slot to (compaction after eviction).
	move(to, from int32)
	// truncate keeps the first n groups.
	truncate(n int)
	// save and load convert to and from the snapshot form.
	save() accState
	load(accState) error
}

// accState is an accumulator's snapshot: whichever slices it uses.
type accState struct {
	I   []int64
	F   []float64
	S   []string
	Has []bool
	C   []int64
	// B holds one encoded state per group, for the accumulators whose
	// state is not a number (sketches, collected values; accum_more.go).
	B [][]byte
}

func newAccumulator(a *expr.BoundAgg) (accumulator, error) {
	switch a.Fn {
	case "count":
		return &countAcc{}, nil
	case "sum":
		if d, ok := a.Type.(*arrow.Decimal128Type); ok {
			return &decimalAcc{op: opSum, typ: d}, nil
		}
		if a.Type.ID() == arrow.FLOAT64 {
			return &numAcc[float64]{op: opSum}, nil
		}
		return &numAcc[int64]{op: opSum, checked: true}, nil
	case "min", "max":
		op := opMin
		if a.Fn == "max" {
			op = opMax
		}
		switch a.Type.ID() {
		case arrow.DECIMAL128:
			return &decimalAcc{op: op, typ: a.Type.(*arrow.Decimal128Type)}, nil
		case arrow.FLOAT64, arrow.FLOAT32:
			return &numAcc[float64]{op: op}, nil
		case arrow.STRING:
			return &stringAcc{max: op == opMax}, nil
		default:
			return &numAcc[int64]{op: op}, nil
		}
	case "try_sum", "try_avg":
		return newTrySumAcc(a), nil
	case "avg":
		if d, ok := a.Type.(*arrow.Decimal128Type); ok {
			in := a.Arg.Type().(*arrow.Decimal128Type)
			return &decimalAcc{op: opAvg, typ: types.DecimalBounded(in.Precision+10, in.Scale), avgType: d}, nil
		}
		return &avgAcc{}, nil
	}
	if acc, ok, err := newMoreAccumulator(a); ok || err != nil {
		return acc, err
	}
	if acc, ok, err := newSketchAccumulator(a); ok || err != nil {
		return acc, err
	}
	return nil, fmt.Errorf("unknown aggregate %q", a.Fn)
}

const (
	opSum = iota
	opMin
	opMax
	opAvg // decimalAcc only: a sum and a count
)

type countAcc struct{ n []int64 }

func (c *countAcc) grow(n int) {
	for len(c.n) < n {
		c.n = append(c.n, 0)
	}
}
func (c *countAcc) update(arg arrow.Array, rows, gids []int32) error {
	n := c.n
	if arg == nil || arg.NullN() == 0 {
		for _, g := range gids {
			n[g]++
		}
		return nil
	}
	for k, g := range gids {
		if arg.IsValid(int(rows[k])) {
			n[g]++
		}
	}
	return nil
}
func (c *countAcc) appendResult(b array.Builder, g int32) { b.(*array.Int64Builder).Append(c.n[g]) }
func (c *countAcc) move(to, from int32)                   { c.n[to] = c.n[from] }
func (c *countAcc) truncate(n int)                        { c.n = c.n[:n] }
func (c *countAcc) save() accState                        { return accState{I: c.n} }
func (c *countAcc) load(s accState) error                 { c.n = s.I; return nil }

// int64Values reads integer-like columns as int64.
func int64Values(a arrow.Array) (func(int) int64, error) {
	switch c := a.(type) {
	case *array.Int64:
		return func(i int) int64 { return c.Value(i) }, nil
	case *array.Int32:
		return func(i int) int64 { return int64(c.Value(i)) }, nil
	case *array.Int16:
		return func(i int) int64 { return int64(c.Value(i)) }, nil
	case *array.Int8:
		return func(i int) int64 { return int64(c.Value(i)) }, nil
	case *array.Timestamp:
		return func(i int) int64 { return int64(c.Value(i)) }, nil
	case *array.Date32:
		return func(i int) int64 { return int64(c.Value(i)) }, nil
	}
	return nil, fmt.Errorf("expected an integer column, got %s", a.DataType())
}

func float64Values(a arrow.Array) (func(int) float64, error) {
	switch c := a.(type) {
	case *array.Float64:
		return func(i int) float64 { return c.Value(i) }, nil
	case *array.Float32:
		return func(i int) float64 { return float64(c.Value(i)) }, nil
	}
	iv, err := int64Values(a)
	if err != nil {
		return nil, err
	}
	return func(i int) float64 { return float64(iv(i)) }, nil
}

// numAcc keeps sum, min or max of int64 or float64 values per group
// (timestamps and narrower integers are read as int64). Nulls are
// skipped, a group with no value is null, and NaN is greater than every
// other double, as in Spark.
//
// A sum of integers that leaves the bigint range fails with Spark's
// ARITHMETIC_OVERFLOW (spark.sql.ansi.enabled, Spark 4's default, as
// Atlas's arithmetic does) instead of wrapping around to a wrong number.
type numAcc[T int64 | float64] struct {
	op      int
	checked bool // sum of int64: check each addition for overflow
	v       []T
	has     []bool
}

// sumOverflows reports whether s = a + b wrapped around (int64 only).
func (c *numAcc[T]) sumOverflows(a, b, s T) bool {
	return c.checked && (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0)
}

func errSumOverflow[T int64 | float64](a, b T) error {
	return fmt.Errorf("[ARITHMETIC_OVERFLOW] long overflow: sum(...) of a group passed the bigint range (%v + %v). Sum a double instead (CAST(x AS double)), or filter the outliers out", a, b)
}

func (c *numAcc[T]) grow(n int) {
	for len(c.v) < n {
		c.v = append(c.v, 0)
		c.has = append(c.has, false)
	}
}

func (c *numAcc[T]) update(arg arrow.Array, rows, gids []int32) error {
	if arg.DataType().ID() == arrow.NULL {
		return nil // sum(NULL): every value is null
	}
	if a, ok := arg.(interface{ Values() []T }); ok && c.op == opSum && arg.NullN() == 0 {
		vals := a.Values() // the common case: sum of a non-null column of T
		for k, g := range gids {
			x := vals[rows[k]]
			sum := c.v[g] + x
			if c.sumOverflows(c.v[g], x, sum) {
				return errSumOverflow(c.v[g], x)
			}
			c.v[g] = sum
			c.has[g] = true
		}
		return nil
	}
	val, err := numValues[T](arg)
	if err != nil {
		return err
	}
	for k, g := range gids {
		i := int(rows[k])
		if arg.IsNull(i) {
			continue
		}
		x := val(i)
		switch cur := c.v[g]; {
		case !c.has[g]:
			c.v[g] = x
		case c.op == opSum:
			sum := cur + x
			if c.sumOverflows(cur, x, sum) {
				return errSumOverflow(cur, x)
			}
			c.v[g] = sum
		case c.op == opMin && (x < cur || isNaN(cur)), c.op == opMax && (x > cur || isNaN(x)):
			c.v[g] = x
		}
		c.has[g] = true
	}
	return nil
}

// isNaN is math.IsNaN for T (always false for int64).
func isNaN[T int64 | float64](x T) bool { return x != x }

// numValues reads a column as T: int64Values or float64Values.
func numValues[T int64 | float64](a arrow.Array) (func(int) T, error) {
	var zero T
	switch any(zero).(type) {
	case int64:
		f, err := int64Values(a)
		return any(f).(func(int) T), err
	default:
		f, err := float64Values(a)
		return any(f).(func(int) T), err
	}
}

func (c *numAcc[T]) appendResult(b array.Builder, g int32) {
	if !c.has[g] {
		b.AppendNull()
		return
	}
	switch x := b.(type) {
	case *array.Int64Builder:
		x.Append(int64(c.v[g]))
	case *array.TimestampBuilder:
		x.Append(arrow.Timestamp(c.v[g]))
	case *array.Float64Builder:
		x.Append(float64(c.v[g]))
	case *array.Int32Builder:
		x.Append(int32(c.v[g]))
	case *array.Int16Builder:
		x.Append(int16(c.v[g]))
	case *array.Int8Builder:
		x.Append(int8(c.v[g]))
	case *array.Date32Builder:
		x.Append(arrow.Date32(c.v[g]))
	case *array.Float32Builder:
		x.Append(float32(c.v[g]))
	}
}

func (c *numAcc[T]) move(to, from int32) { c.v[to], c.has[to] = c.v[from], c.has[from] }
func (c *numAcc[T]) truncate(n int)      { c.v, c.has = c.v[:n], c.has[:n] }

func (c *numAcc[T]) save() accState {
	if v, isInt := any(c.v).([]int64); isInt {
		return accState{I: v, Has: c.has}
	}
	return accState{F: any(c.v).([]float64), Has: c.has}
}

func (c *numAcc[T]) load(s accState) error {
	if _, isInt := any(c.v).([]int64); isInt {
		c.v = any(s.I).([]T)
	} else {
		c.v = any(s.F).([]T)
	}
	c.has = s.Has
	return nil
}

type avgAcc struct {
	sum []float64
	n   []int64
}

func (c *avgAcc) grow(n int) {
	for len(c.n) < n {
		c.sum = append(c.sum, 0)
		c.n = append(c.n, 0)
	}
}
func (c *avgAcc) update(arg arrow.Array, rows, gids []int32) error {
	if arg.DataType().ID() == arrow.NULL {
		return nil // avg(NULL): every value is null
	}
	val, err := float64Values(arg)
	if err != nil {
		return err
	}
	for k, g := range gids {
		i := int(rows[k])
		if arg.IsNull(i) {
			continue
		}
		c.sum[g] += val(i)
		c.n[g]++
	}
	return nil
}
func (c *avgAcc) appendResult(b array.Builder, g int32) {
	if c.n[g] == 0 {
		b.AppendNull()
		return
	}
	b.(*array.Float64Builder).Append(c.sum[g] / float64(c.n[g]))
}
func (c *avgAcc) move(to, from int32)   { c.sum[to], c.n[to] = c.sum[from], c.n[from] }
func (c *avgAcc) truncate(n int)        { c.sum, c.n = c.sum[:n], c.n[:n] }
func (c *avgAcc) save() accState        { return accState{F: c.sum, C: c.n} }
func (c *avgAcc) load(s accState) error { c.sum, c.n = s.F, s.C; return nil }

type stringAcc struct {
	max bool
	v   []string
	has []bool
}

func (c *stringAcc) grow(n int) {
	for len(c.v) < n {
		c.v = append(c.v, "")
		c.has = append(c.has, false)
	}
}
func (c *stringAcc) update(arg arrow.Array, rows, gids []int32) error {
	s, ok := arg.(*array.String)
	if !ok {
		return fmt.Errorf("expected a string column, got %s", arg.DataType())
	}
	for k, g := range gids {
		i := int(rows[k])
		if s.IsNull(i) {
			continue
		}
		x := s.Value(i)
		if !c.has[g] || (c.max && x > c.v[g]) || (!c.max && x < c.v[g]) {
			c.v[g] = string([]byte(x)) // own the bytes: the record is released later
		}
		c.has[g] = true
	}
	return nil
}
func (c *stringAcc) appendResult(b array.Builder, g int32) {
	if !c.has[g] {
		b.AppendNull()
		return
	}
	b.(*array.StringBuilder).Append(c.v[g])
}
func (c *stringAcc) move(to, from int32)   { c.v[to], c.has[to] = c.v[from], c.has[from] }
func (c *stringAcc) truncate(n int)        { c.v, c.has = c.v[:n], c.has[:n] }
func (c *stringAcc) save() accState        { return accState{S: c.v, Has: c.has} }
func (c *stringAcc) load(s accState) error { c.v, c.has = s.S, s.Has; return nil }
