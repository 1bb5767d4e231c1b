package exec

import (
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
)

// opNode is one operator in a query's operator tree.
type opNode struct {
	op       Operator
	children []*opNode
	parent   *opNode
	slot     int // this node's index among its parent's children
	// id is the stateful operator id (Spark's StatefulOperatorStateInfo
	// operatorId: stateful operators numbered from the root down, 0
	// first), -1 for a stateless operator; dir is its state directory.
	id  int
	dir string
	// A leaf reads source `source` (its index among the query's sources)
	// and runs chain over its rows, as does a node of stateless operators
	// over its child's; stats are the event-time statistics of the
	// chain's watermark operator (nil without one), delay its delay.
	source int
	chain  *chainOp
	stats  *EventTimeStats
	delay  time.Duration
	// emit hands this node's output to its parent (or to the sink).
	emit emitFunc
	// late and evict are this batch's propagated watermarks (ms), valid
	// when hasWM.
	late, evict int64
	hasWM       bool
}

// opTree is the physical plan of a streaming query: Spark's executed plan
// of an IncrementalExecution, built once per run.
type opTree struct {
	root *opNode
	// leaves are the nodes reading the sources, in source order (left to
	// right in the plan, as Spark numbers sources).
	leaves []*opNode
	scans  []*plan.StreamScan
	// stateful are the stateful nodes from the bottom up (post-order):
	// the order of the progress report's stateOperators.
	stateful []*opNode
	// post is every node in post-order (children first): the order of
	// Advance.
	post []*opNode
	// wms are the nodes holding a watermark operator (stats set), in
	// post-order.
	wms []*opNode
	// aggs are the aggregate operators (for eventTimeMaxAheadOfProcessing
	// and late rows).
	aggs []*aggregateOp
	mode sink.OutputMode
}

// buildTree compiles a validated streaming plan into operators, binding
// every expression afresh for this run.
func buildTree(root plan.Node, mode sink.OutputMode) (*opTree, error) {
	t := &opTree{mode: mode}
	r, err := t.build(root)
	if err != nil {
		return nil, err
	}
	t.root = r
	t.number()
	return t, nil
}

// build compiles the plan under n.
func (t *opTree) build(n plan.Node) (*opNode, error) {
	switch x := n.(type) {
	case *plan.StreamScan:
		leaf := &opNode{id: -1, source: len(t.scans), chain: &chainOp{}}
		leaf.op = leaf.chain
		t.scans = append(t.scans, x)
		t.leaves = append(t.leaves, leaf)
		return leaf, nil
	case *plan.Project, *plan.Filter, *plan.Generate, *plan.SubqueryAlias:
		return t.stateless(n, n.Input())
	case *plan.Watermark:
		child, err := t.build(x.In)
		if err != nil {
			return nil, err
		}
		return t.watermark(x, child)
	case *plan.Join:
		ls, rs := x.Left.IsStreaming(), x.Right.IsStreaming()
		if ls && rs {
			return t.streamJoin(x)
		}
		stream := x.Left
		if rs {
			stream = x.Right
		}
		return t.stateless(n, stream)
	case *plan.Aggregate:
		child, err := t.build(x.In)
		if err != nil {
			return nil, err
		}
		a, err := newAggregateOp(x, t.mode)
		if err != nil {
			return nil, err
		}
		t.aggs = append(t.aggs, a)
		return t.parentOf(a, child), nil
	case *plan.Deduplicate:
		child, err := t.build(x.In)
		if err != nil {
			return nil, err
		}
		return t.parentOf(newDedupOp(x), child), nil
	case *plan.Union:
		u := &opNode{id: -1, source: -1, op: newUnionOp(x)}
		for i, in := range x.Inputs {
			if !in.IsStreaming() {
				return nil, fmt.Errorf("union between streaming and batch DataFrames/Datasets is not supported: input %d of %s is a batch DataFrame", i+1, x.Describe())
			}
			c, err := t.build(in)
			if err != nil {
				return nil, err
			}
			c.parent, c.slot = u, i
			u.children = append(u.children, c)
		}
		return u, nil
	case *plan.Sort, *plan.Limit:
		child, err := t.build(n.Input())
		if err != nil {
			return nil, err
		}
		o, err := newSortLimitOp(n, t.mode)
		if err != nil {
			return nil, err
		}
		return t.parentOf(o, child), nil
	}
	return nil, fmt.Errorf("cannot execute %s in a streaming query", n.Describe())
}

// stateless adds the stateless operator n over the plan in, to in's chain
// when in ends in one.
func (t *opTree) stateless(n, in plan.Node) (*opNode, error) {
	child, err := t.build(in)
	if err != nil {
		return nil, err
	}
	ops, err := compileOps([]plan.Node{n}, nil)
	if err != nil {
		return nil, err
	}
	if child.chain != nil {
		child.chain.ops = append(child.chain.ops, ops...)
		return child, nil
	}
	c := &chainOp{ops: ops}
	node := t.parentOf(c, child)
	node.chain = c
	return node, nil
}

// watermark puts the watermark operator w over child: at the end of
// child's chain of stateless operators when it ends in one, else as a
// node of its own. Either way it is a node with stats: it tracks the
// event times of the rows that reach it (after a dropDuplicates below it,
// the rows kept, as Spark's EventTimeWatermarkExec sees them), and
// propagateWatermarks makes its output the query's watermark, while the
// operators below it get what reaches them from below: for a
// dropDuplicates without a watermark, nothing (it has no event-time
// column to judge rows by, Spark's WatermarkPropagator).
func (t *opTree) watermark(w *plan.Watermark, child *opNode) (*opNode, error) {
	if hasEventTimeState(child) {
		return nil, fmt.Errorf("withWatermark(%q) after a stateful operator is not supported: set the watermark on the input", w.Column)
	}
	at := child
	if at.chain == nil {
		c := &chainOp{}
		at = t.parentOf(c, child)
		at.chain = c
	}
	if at.stats == nil {
		at.stats = &EventTimeStats{}
	}
	at.delay = w.Delay
	at.chain.ops = append(at.chain.ops, &watermarkOp{index: w.Index, stats: at.stats, schema: w.Out})
	return at, nil
}

// hasEventTimeState reports whether the tree under n holds an operator
// whose state is kept by event time (an aggregation, a stream-stream join,
// a deduplication with a watermark): a watermark above one would judge
// its output, whose event times it made, and is refused.
func hasEventTimeState(n *opNode) bool {
	switch o := n.op.(type) {
	case *aggregateOp, *streamJoin:
		return true
	case *dedupOp:
		if o.node.EventTime >= 0 {
			return true
		}
	}
	for _, c := range n.children {
		if hasEventTimeState(c) {
			return true
		}
	}
	return false
}

// streamJoin builds a stream-stream join over its two sides.
func (t *opTree) streamJoin(j *plan.Join) (*opNode, error) {
	sj := &plan.StreamStreamJoin{Join: j}
	var kids [2]*opNode
	for i, side := range []plan.Node{j.Left, j.Right} {
		sh, err := plan.Analyze(side)
		if err != nil {
			return nil, err
		}
		sj.Sides[i] = sh
		if kids[i], err = t.build(side); err != nil {
			return nil, err
		}
	}
	op, err := newStreamJoin(sj)
	if err != nil {
		return nil, err
	}
	n := &opNode{id: -1, source: -1, op: op}
	for i, k := range kids {
		k.parent, k.slot = n, i
		n.children = append(n.children, k)
	}
	return n, nil
}

// parentOf puts op over child.
func (t *opTree) parentOf(op Operator, child *opNode) *opNode {
	n := &opNode{id: -1, source: -1, op: op, children: []*opNode{child}}
	child.parent = n
	return n
}

// number assigns the stateful operator ids from the root down (pre-order,
// left input first), as Spark's IncrementalExecution does, their state
// directories, and the post-order lists.
func (t *opTree) number() {
	next := 0
	var pre func(n *opNode)
	pre = func(n *opNode) {
		if isStateful(n.op) {
			n.id = next
			next++
		}
		for _, c := range n.children {
			pre(c)
		}
	}
	pre(t.root)
	var post func(n *opNode)
	post = func(n *opNode) {
		for _, c := range n.children {
			post(c)
		}
		t.post = append(t.post, n)
		if n.stats != nil {
			t.wms = append(t.wms, n)
		}
		if n.id >= 0 {
			t.stateful = append(t.stateful, n)
		}
	}
	post(t.root)
	for _, n := range t.stateful {
		n.dir = fmt.Sprintf("%d/%s", n.id, n.op.Kind())
	}
	if len(t.stateful) == 1 && t.stateful[0].op.Kind() == dedupKind {
		// Atlas kept a deduplication's state at 1/dedupe before operators
		// were numbered (its id beside the aggregation it preceded): a
		// query whose only stateful operator is a deduplication keeps it
		// there, so its checkpoints resume.
		t.stateful[0].dir = dedupStateOp
	}
}

// isStateful reports whether op keeps state across micro-batches.
func isStateful(op Operator) bool {
	switch o := op.(type) {
	case *aggregateOp, *dedupOp, *streamJoin:
		return true
	case *sortLimitOp:
		return o.stateful()
	}
	return false
}

// hasWatermark reports whether the query defines a watermark.
func (t *opTree) hasWatermark() bool { return len(t.wms) > 0 }
