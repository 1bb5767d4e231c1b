package state

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// RowKeys encodes row i of cols as one string, as grouping keys are
// encoded: two rows have the same key when every column holds equal
// values (nulls equal to nulls). Window functions use it to find the
// boundaries of partitions and of peer groups.
func RowKeys(cols []arrow.Array, n int) ([]string, error) {
	encs := make([]keyEncoder, len(cols))
	for i, c := range cols {
		e, err := newKeyEncoder(c)
		if err != nil {
			return nil, fmt.Errorf("window key %d: %w", i+1, err)
		}
		encs[i] = e
	}
	out := make([]string, n)
	var buf []byte
	for i := 0; i < n; i++ {
		buf = buf[:0]
		for _, e := range encs {
			buf = e(buf, i)
		}
		out[i] = string(buf)
	}
	return out, nil
}

// FrameAggregate evaluates the aggregate agg over window frames with the
// accumulators of grouped aggregation: row i's result is agg over the
// rows [lo[i], hi[i]) of arg (nil for count(*)), a null or the
// function's empty value when the frame is empty. Rows whose frames are
// the same share one accumulator group, so a whole-partition or a peer
// group's frame is computed once.
func FrameAggregate(mem memory.Allocator, agg *expr.BoundAgg, arg arrow.Array, lo, hi []int) (arrow.Array, error) {
	acc, err := newAccumulator(agg)
	if err != nil {
		return nil, err
	}
	type span struct{ lo, hi int }
	groups := map[span]int32{}
	gidOf := make([]int32, len(lo))
	var rows, gids []int32
	const chunk = 1 << 16
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		acc.grow(len(groups))
		err := acc.update(arg, rows, gids)
		rows, gids = rows[:0], gids[:0]
		return err
	}
	for i := range lo {
		s := span{lo[i], hi[i]}
		g, seen := groups[s]
		if !seen {
			g = int32(len(groups))
			groups[s] = g
			for r := s.lo; r < s.hi; r++ {
				rows = append(rows, int32(r))
				gids = append(gids, g)
				if len(rows) >= chunk {
					if err := flush(); err != nil {
						return nil, err
					}
				}
			}
		}
		gidOf[i] = g
	}
	acc.grow(len(groups))
	if err := flush(); err != nil {
		return nil, err
	}
	b := array.NewBuilder(mem, agg.Type)
	defer b.Release()
	for _, g := range gidOf {
		acc.appendResult(b, g)
	}
	return b.NewArray(), nil
}
