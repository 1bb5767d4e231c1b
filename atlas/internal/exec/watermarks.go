package exec

import "math"

// propagateWatermarks sets every node's watermark for late rows and for
// eviction from the query's watermark of the previous batch (lateMs) and
// of this one (evictMs), as Spark's PropagateWatermarkSimulator
// (SPARK-40925): walking the tree children first, a watermark operator
// outputs the query's watermark; any other node's input watermark is the
// smallest of its children's outputs (children without one left out), and
// its output is its operator's OutputWatermark of that (a stateless
// operator passes it on). A node no watermark reaches has none. A query
// watermark of 0 is not propagated: every operator then has 0.
func (t *opTree) propagateWatermarks(lateMs, evictMs int64) {
	late := t.propagate(lateMs)
	evict := t.propagate(evictMs)
	for _, n := range t.post {
		l, e := late[n], evict[n]
		n.hasWM = l.ok || e.ok
		n.late, n.evict = max(l.ms, 0), max(e.ms, 0)
	}
}

type wmValue struct {
	ms int64
	ok bool
}

// propagate computes each node's input watermark for one query watermark.
func (t *opTree) propagate(origin int64) map[*opNode]wmValue {
	in := make(map[*opNode]wmValue, len(t.post))
	out := make(map[*opNode]wmValue, len(t.post))
	for _, n := range t.post {
		var v wmValue
		for _, c := range n.children {
			if o := out[c]; o.ok && (!v.ok || o.ms < v.ms) {
				v = o
			}
		}
		if origin == 0 && v.ok {
			v.ms = 0
		}
		if n.stats != nil {
			// A watermark operator: its rows carry the query's watermark,
			// whatever reaches it from below (the stateless operators of
			// its chain do not judge rows by it).
			in[n], out[n] = wmValue{origin, true}, wmValue{origin, true}
			continue
		}
		in[n] = v
		if v.ok && origin != 0 {
			out[n] = wmValue{n.op.OutputWatermark(v.ms), true}
		} else {
			out[n] = v
		}
	}
	return in
}

// watermarkTracker is Spark's WatermarkTracker: each watermark operator's
// watermark is its largest event time so far minus its delay (0 before it
// has seen a row, never going back), and the query's is the smallest of
// them (multipleWatermarkPolicy "min") or the largest ("max"), never
// going back either.
type watermarkTracker struct {
	leaves []*opNode // the nodes with a watermark operator
	ms     []int64
	seen   []bool
	useMax bool
}

func newWatermarkTracker(t *opTree, useMax bool) *watermarkTracker {
	w := &watermarkTracker{useMax: useMax}
	w.leaves = t.wms
	w.ms = make([]int64, len(w.leaves))
	w.seen = make([]bool, len(w.leaves))
	return w
}

// next is the query's watermark after a batch whose watermark is current.
func (w *watermarkTracker) next(current int64) int64 {
	if len(w.leaves) == 0 {
		return current
	}
	global := int64(math.MaxInt64)
	if w.useMax {
		global = math.MinInt64
	}
	for i, l := range w.leaves {
		if st := l.stats; st.Count > 0 {
			if v := st.Max/1000 - l.delay.Milliseconds(); !w.seen[i] || v > w.ms[i] {
				w.ms[i], w.seen[i] = v, true
			}
		}
		v := int64(0)
		if w.seen[i] {
			v = w.ms[i]
		}
		if w.useMax {
			global = max(global, v)
		} else {
			global = min(global, v)
		}
	}
	return max(global, current)
}

// restoreFrom takes the watermarks of the sources that feed a
// stream-stream join directly from the join's state, which keeps them so
// that a restarted query derives the same query watermark as a run that
// never stopped.
func (w *watermarkTracker) restoreFrom() {
	for i, l := range w.leaves {
		if j, ok := joinOver(l); ok {
			w.ms[i], w.seen[i] = j.st.Watermarks[l.slot], j.st.Seen[l.slot]
		}
	}
}

// saveTo hands those watermarks back to the join's state, before it is
// saved.
func (w *watermarkTracker) saveTo() {
	for i, l := range w.leaves {
		if j, ok := joinOver(l); ok {
			j.st.Watermarks[l.slot], j.st.Seen[l.slot] = w.ms[i], w.seen[i]
		}
	}
}

// joinOver is the stream-stream join reading leaf l directly.
func joinOver(l *opNode) (*streamJoin, bool) {
	if l.parent == nil {
		return nil, false
	}
	j, ok := l.parent.op.(*streamJoin)
	return j, ok
}
