package state

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// decimalAcc keeps sum, avg, min or max of a DECIMAL column per group, as
// exact unscaled values at the column's scale: Spark's Sum (DECIMAL(p+10,s),
// NUMERIC_VALUE_OUT_OF_RANGE beyond it), Average (the sum divided by the
// count, rounded half up to DECIMAL(p+4,s+4)) and Min/Max (the column's
// type). Nulls are skipped; a group without a value is null. The snapshot
// holds each value's digits (S) and, for avg, the counts (C).
type decimalAcc struct {
	op      int
	typ     *arrow.Decimal128Type // the result's (sum: the sum's) type
	avgType *arrow.Decimal128Type // avg: the average's type
	v       []*big.Int
	n       []int64
}

func (c *decimalAcc) grow(n int) {
	for len(c.v) < n {
		c.v = append(c.v, nil)
		c.n = append(c.n, 0)
	}
}

func (c *decimalAcc) update(arg arrow.Array, rows, gids []int32) error {
	d, ok := arg.(*array.Decimal128)
	if !ok {
		return fmt.Errorf("expected a decimal column, got %s", arg.DataType())
	}
	for k, g := range gids {
		i := int(rows[k])
		if d.IsNull(i) {
			continue
		}
		x := d.Value(i).BigInt()
		c.n[g]++
		switch cur := c.v[g]; {
		case cur == nil:
			c.v[g] = x
		case c.op == opSum || c.op == opAvg:
			if err := expr.DecimalSum(cur, x, c.typ); err != nil {
				return fmt.Errorf("sum(...): %w", err)
			}
		case c.op == opMin && x.Cmp(cur) < 0, c.op == opMax && x.Cmp(cur) > 0:
			c.v[g] = x
		}
	}
	return nil
}

func (c *decimalAcc) appendResult(b array.Builder, g int32) {
	if c.v[g] == nil {
		b.AppendNull()
		return
	}
	db := b.(*array.Decimal128Builder)
	if c.op != opAvg {
		db.Append(decimal128.FromBigInt(c.v[g]))
		return
	}
	avg, err := expr.DecimalAverage(c.v[g], c.typ, c.n[g], c.avgType)
	if err != nil {
		// Only an average of 38-digit values can miss DECIMAL(38,s+4).
		b.AppendNull()
		return
	}
	db.Append(avg)
}

func (c *decimalAcc) move(to, from int32) { c.v[to], c.n[to] = c.v[from], c.n[from] }
func (c *decimalAcc) truncate(n int)      { c.v, c.n = c.v[:n], c.n[:n] }

func (c *decimalAcc) save() accState {
	s := accState{S: make([]string, len(c.v)), Has: make([]bool, len(c.v)), C: append([]int64(nil), c.n...)}
	for i, v := range c.v {
		if v != nil {
			s.S[i], s.Has[i] = v.String(), true
		}
	}
	return s
}

func (c *decimalAcc) load(s accState) error {
	c.v = make([]*big.Int, len(s.S))
	c.n = s.C
	if len(c.n) < len(c.v) {
		c.n = append(c.n, make([]int64, len(c.v)-len(c.n))...)
	}
	for i, text := range s.S {
		if i < len(s.Has) && !s.Has[i] {
			continue
		}
		v, ok := new(big.Int).SetString(text, 10)
		if !ok {
			return fmt.Errorf("decimal aggregate state: bad value %q", text)
		}
		c.v[i] = v
	}
	return nil
}
