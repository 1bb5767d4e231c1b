package plan

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
)

// Streaming plans that compose stateful operators (Spark 3.4+,
// SPARK-40925): several aggregations in a chain, an aggregation or a
// deduplication after a stream-stream join, streaming unions. The
// executor runs them as a tree of operators, each with its own state and
// its own watermark; the checks below are Spark's UnsupportedOperationChecker
// rules for such plans.

// isComposed reports whether a streaming plan needs the tree executor's
// compositions: Analyze's linear shape (one aggregation, one
// deduplication before it, one stream-stream join at the bottom) cannot
// hold it.
func isComposed(root Node) bool {
	var aggs, joins int
	composed := false
	var walk func(n Node, aboveStateful bool)
	walk = func(n Node, aboveStateful bool) {
		switch x := n.(type) {
		case *Aggregate:
			aggs++
			aboveStateful = true
		case *Deduplicate:
			aboveStateful = true
		case *Union:
			if x.IsStreaming() && !x.Subquery {
				composed = true
			}
			for _, in := range x.Inputs {
				walk(in, aboveStateful)
			}
			return
		case *Join:
			if x.Left.IsStreaming() && x.Right.IsStreaming() {
				joins++
				if aboveStateful {
					composed = true // something stateful after the join
				}
				if hasStateful(x.Left) || hasStateful(x.Right) {
					composed = true // a join after a stateful operator
				}
			}
			if x.Left.IsStreaming() {
				walk(x.Left, aboveStateful)
			}
			if x.Right.IsStreaming() {
				walk(x.Right, aboveStateful)
			}
			return
		}
		if in := n.Input(); in != nil {
			walk(in, aboveStateful)
		}
	}
	walk(root, false)
	return composed || aggs > 1 || joins > 1 || dedupAfterAggregate(root)
}

// hasStateful reports whether the streaming plan under n holds an
// aggregation, a deduplication or a stream-stream join.
func hasStateful(n Node) bool {
	found := false
	walkStreaming(n, func(m Node) {
		switch x := m.(type) {
		case *Aggregate, *Deduplicate:
			found = true
		case *Join:
			if x.Left.IsStreaming() && x.Right.IsStreaming() {
				found = true
			}
		}
	})
	return found
}

// dedupAfterAggregate reports a deduplication above an aggregation.
func dedupAfterAggregate(root Node) bool {
	found := false
	walkStreaming(root, func(m Node) {
		if d, ok := m.(*Deduplicate); ok && hasAggregate(d.In) {
			found = true
		}
	})
	return found
}

func hasAggregate(n Node) bool {
	found := false
	walkStreaming(n, func(m Node) {
		if _, ok := m.(*Aggregate); ok {
			found = true
		}
	})
	return found
}

// walkStreaming calls fn on every node of the streaming part of the plan
// under n, n first.
func walkStreaming(n Node, fn func(Node)) {
	if n == nil || !n.IsStreaming() {
		return
	}
	fn(n)
	switch x := n.(type) {
	case *Union:
		for _, in := range x.Inputs {
			walkStreaming(in, fn)
		}
		return
	case *Join:
		walkStreaming(x.Left, fn)
		walkStreaming(x.Right, fn)
		return
	}
	walkStreaming(n.Input(), fn)
}

// validateComposed applies Spark's rules to a plan of composed stateful
// operators for an output mode and returns its Shape: Root, the first
// watermark, and no linear summary (Agg, Pre, ... stay empty).
func validateComposed(root Node, mode sink.OutputMode) (*Shape, error) {
	s := &Shape{Root: root, Leaf: root}
	var aggs []*Aggregate
	var err error
	fail := func(e error) {
		if err == nil {
			err = e
		}
	}
	walkStreaming(root, func(n Node) {
		switch n.(type) {
		case *Aggregate, *Deduplicate, *Join, *Union:
			if hasSortOrLimit(n) {
				fail(fmt.Errorf("%s after orderBy/limit is not supported on streaming DataFrames: sort or limit last", n.Describe()))
			}
		}
		switch x := n.(type) {
		case *Watermark:
			if s.Watermark == nil {
				s.Watermark = x
			}
			if hasStateful(x.In) {
				fail(fmt.Errorf("withWatermark(%q) after a stateful operator (aggregation, deduplication, stream-stream join) is not supported: set the watermark on the input stream", x.Column))
			}
		case *Aggregate:
			aggs = append(aggs, x)
			if e := checkAggregate(x, mode); e != nil {
				fail(e)
			}
		case *Deduplicate:
			if x.WithinWatermark && x.EventTime < 0 {
				fail(fmt.Errorf("dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark: call WithWatermark(\"<event time column>\", \"<delay>\") before it"))
			}
		case *Union:
			for i, in := range x.Inputs {
				if !in.IsStreaming() {
					fail(fmt.Errorf("union between streaming and batch DataFrames/Datasets is not supported: input %d of %s is a batch DataFrame; union two streams, or join the stream with the batch DataFrame", i+1, x.Describe()))
				}
			}
		case *Join:
			ls, rs := x.Left.IsStreaming(), x.Right.IsStreaming()
			if e := checkStreamJoinType(x, ls, rs); e != nil {
				fail(e)
			}
			if ls && rs && mode != sink.Append {
				fail(fmt.Errorf("Join between two streaming DataFrames/Datasets is not supported in %s output mode, only in Append output mode: use OutputMode(\"append\")", mode))
			}
			if ls && rs {
				for i, side := range []Node{x.Left, x.Right} {
					if hasJoinOrUnion(side) {
						fail(fmt.Errorf("the %s side of a stream-stream join holds a further stream-stream join or a union: Atlas joins two streams that each read one source; write one join's output to a table and join that stream", sideName(i)))
					}
				}
			} else if hasStateful(x.Left) || hasStateful(x.Right) {
				fail(fmt.Errorf("a stream-static join after an aggregation, deduplication or stream-stream join is not supported: join the static DataFrame first, then aggregate"))
			}
		case *Sort:
			if mode != sink.Complete || !hasAggregate(x.In) {
				fail(fmt.Errorf("sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode"))
			}
		case *Limit:
			if mode != sink.Complete || !hasAggregate(x.In) {
				fail(fmt.Errorf("limit on a streaming DataFrame is supported only after an aggregation in complete output mode"))
			}
		}
	})
	if err != nil {
		return nil, err
	}
	switch mode {
	case sink.Append, sink.Update:
		if len(aggs) > 1 && mode != sink.Append {
			return nil, fmt.Errorf("Multiple streaming aggregations are not supported with streaming DataFrames/Datasets in %s output mode (multiple aggregations run in append output mode only): use OutputMode(\"append\"), with a watermark and a window in every aggregation", mode)
		}
	case sink.Complete:
		if len(aggs) == 0 {
			return nil, fmt.Errorf("complete output mode not supported when there are no streaming aggregations: use OutputMode(\"append\")")
		}
		if len(aggs) > 1 {
			return nil, fmt.Errorf("Multiple streaming aggregations are not supported with streaming DataFrames/Datasets in complete output mode (multiple aggregations run in append output mode only): use OutputMode(\"append\"), with a watermark and a window in every aggregation")
		}
	default:
		return nil, fmt.Errorf("unknown output mode %q", mode)
	}
	return s, nil
}

// checkAggregate applies the rules of one aggregation among others.
func checkAggregate(a *Aggregate, mode sink.OutputMode) error {
	one := &Shape{Agg: a}
	if err := checkStatefulStreaming(one, mode); err != nil {
		return err
	}
	if mode != sink.Append {
		return nil
	}
	if a.EvictKey < 0 {
		return fmt.Errorf("append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark: %s needs a window over the event time (or the event time itself) among its keys, with WithWatermark(...) on the input; for an aggregation over another's output, group by Window(WindowTime(Col(\"window\")), ...)", a.Describe())
	}
	if !watermarked(a.In) {
		return fmt.Errorf("append output mode not supported when there are streaming aggregations on streaming DataFrames/DataSets without watermark: add WithWatermark(...) on the input of %s", a.Describe())
	}
	return nil
}

// watermarked reports whether a watermark reaches n's output.
func watermarked(n Node) bool {
	found := false
	walkStreaming(n, func(m Node) {
		if _, ok := m.(*Watermark); ok {
			found = true
		}
	})
	return found
}

// hasJoinOrUnion reports a stream-stream join or a streaming union under n.
func hasJoinOrUnion(n Node) bool {
	found := false
	walkStreaming(n, func(m Node) {
		switch x := m.(type) {
		case *Union:
			found = found || !x.Subquery
		case *Join:
			found = found || (x.Left.IsStreaming() && x.Right.IsStreaming())
		}
	})
	return found
}

// hasSortOrLimit reports a Sort or Limit below n.
func hasSortOrLimit(n Node) bool {
	found := false
	walkStreaming(n, func(m Node) {
		if m == n {
			return
		}
		switch m.(type) {
		case *Sort, *Limit:
			found = true
		}
	})
	return found
}
