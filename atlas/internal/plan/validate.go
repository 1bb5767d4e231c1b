package plan

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
)

// Shape summarises a linear plan for execution: the part before the
// aggregation, the aggregation, and what follows it.
type Shape struct {
	// Root is the plan's root: a streaming query runs it as a tree of
	// operators (the fields below summarise the linear plans of batch
	// execution and of queries with one stateful operator of each kind).
	Root Node
	// Leaf is the scan.
	Leaf Node
	// Pre are Project/Filter/Watermark nodes before the aggregation, leaf first.
	Pre []Node
	// Agg is the aggregation, or nil.
	Agg *Aggregate
	// Post are Project/Filter nodes after the aggregation, in order.
	Post []Node
	// Sort and Limit apply last.
	Sort  *Sort
	Limit *Limit
	// Watermark is the watermark node, or nil.
	Watermark *Watermark
	// Dedup is the deduplication (also in Pre), or nil.
	Dedup *Deduplicate
	// StreamJoin is the stream-stream join the plan starts from (Leaf is
	// then the join), or nil.
	StreamJoin *StreamStreamJoin
	// StaticJoins counts the stream-static joins among Pre.
	StaticJoins int
}

// Analyze splits a plan into its Shape, rejecting plans Atlas cannot run
// (two aggregations, a sort below an aggregation...).
func Analyze(root Node) (*Shape, error) {
	var chain []Node
	for n := root; n != nil; n = n.Input() {
		chain = append([]Node{n}, chain...)
		if _, ok := n.(*Join); ok {
			break // a join is the leaf of the part above it
		}
	}
	s := &Shape{Root: root, Leaf: chain[0]}
	for _, n := range chain[1:] {
		switch x := n.(type) {
		case *Aggregate:
			if s.Agg != nil {
				return nil, fmt.Errorf("multiple aggregations in one query are not supported: aggregate once, or use foreachBatch for a second step")
			}
			if s.Sort != nil || s.Limit != nil {
				return nil, fmt.Errorf("orderBy/limit before groupBy is not supported")
			}
			s.Agg = x
		case *Sort:
			if s.Limit != nil {
				return nil, fmt.Errorf("orderBy after limit is not supported")
			}
			s.Sort = x
		case *Limit:
			if s.Limit == nil || x.N < s.Limit.N {
				s.Limit = x
			}
		case *Deduplicate:
			if err := s.addDedup(x); err != nil {
				return nil, err
			}
		case *Watermark:
			if s.Agg != nil {
				return nil, fmt.Errorf("withWatermark after groupBy is not supported: set the watermark on the input")
			}
			s.Watermark = x
			s.Pre = append(s.Pre, x)
		default:
			if s.Sort != nil || s.Limit != nil {
				return nil, fmt.Errorf("%s after orderBy/limit is not supported", n.Describe())
			}
			if s.Agg != nil {
				s.Post = append(s.Post, n)
			} else {
				s.Pre = append(s.Pre, n)
			}
		}
	}
	if j, ok := s.Leaf.(*Join); ok && j.IsStreaming() {
		if err := analyzeStreamJoin(j, s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// ValidateStreaming applies Spark's UnsupportedOperationChecker rules for
// an output mode. Errors say what is wrong and how to fix it.
func ValidateStreaming(root Node, mode sink.OutputMode) (*Shape, error) {
	if !root.IsStreaming() {
		return nil, fmt.Errorf("writeStream needs a streaming DataFrame (from ReadStream()); use Write() for a batch DataFrame")
	}
	if err := RefuseWindows(root); err != nil {
		return nil, err
	}
	if isComposed(root) {
		return validateComposed(root, mode)
	}
	s, err := Analyze(root)
	if err != nil {
		return nil, err
	}
	if u, ok := s.Leaf.(*Union); ok {
		return nil, fmt.Errorf("%s: unions of streaming DataFrames are not supported yet: union the micro-batch with the other rows inside ForeachBatch", u.Describe())
	}
	if err := validateStreamStream(s, mode); err != nil {
		return nil, err
	}
	if err := checkStatefulStreaming(s, mode); err != nil {
		return nil, err
	}
	switch mode {
	case sink.Append:
		if s.Agg != nil && s.Watermark == nil {
			return nil, fmt.Errorf("append output mode not supported when there are streaming aggregations on streaming DataFrames without watermark: add WithWatermark(\"<event time column>\", \"10 minutes\") before GroupBy, or use OutputMode(\"update\") or \"complete\"")
		}
		if s.Agg != nil && s.Agg.EvictKey < 0 {
			return nil, fmt.Errorf("append output mode needs the watermarked column %q (or a window over it) among the GroupBy keys, otherwise no group can ever be final: group by Window(Col(%q), ...)", s.Watermark.Column, s.Watermark.Column)
		}
	case sink.Complete:
		if s.Agg == nil {
			return nil, fmt.Errorf("complete output mode not supported when there are no streaming aggregations: use OutputMode(\"append\")")
		}
	case sink.Update:
	default:
		return nil, fmt.Errorf("unknown output mode %q", mode)
	}
	if (s.Sort != nil || s.Limit != nil) && mode != sink.Complete {
		return nil, fmt.Errorf("sorting and limit on a streaming DataFrame are supported only after an aggregation in complete output mode")
	}
	return s, nil
}
