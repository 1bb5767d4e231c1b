package plan

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
)

// StreamStreamJoin is the stream-stream join of a streaming query: each
// side is a linear plan over its own source (with its own watermark), and
// the join keeps both sides' rows in state.
type StreamStreamJoin struct {
	Join *Join
	// Sides are the analyzed left and right inputs.
	Sides [2]*Shape
}

// Side names a join input: 0 for the left, 1 for the right.
func sideName(i int) string { return [2]string{"left", "right"}[i] }

// analyzeStreamJoin flattens a join with a stream into s. A stream-static
// join becomes an operator of the stream's pipeline (s.Leaf is then the
// stream's scan); a stream-stream join is kept in s.StreamJoin with both
// sides analyzed. Spark's UnsupportedOperationChecker rules for join types
// apply here; the output-mode rules in ValidateStreaming.
func analyzeStreamJoin(j *Join, s *Shape) error {
	ls, rs := j.Left.IsStreaming(), j.Right.IsStreaming()
	if err := checkStreamJoinType(j, ls, rs); err != nil {
		return err
	}
	if ls && rs {
		ss := &StreamStreamJoin{Join: j}
		for i, side := range []Node{j.Left, j.Right} {
			sh, err := Analyze(side)
			if err != nil {
				return err
			}
			if sh.Agg != nil || sh.Sort != nil || sh.Limit != nil || sh.StreamJoin != nil || sh.StaticJoins > 0 || sh.Dedup != nil {
				return fmt.Errorf("the %s side of a stream-stream join must be a plain stream (select, filter, withWatermark): aggregations, deduplication, sorts, limits and further joins before a stream-stream join are not supported; join first", sideName(i))
			}
			if _, ok := sh.Leaf.(*StreamScan); !ok {
				return fmt.Errorf("the %s side of a stream-stream join must read a stream", sideName(i))
			}
			ss.Sides[i] = sh
		}
		if s.Dedup != nil {
			return fmt.Errorf("dropDuplicates after a stream-stream join is not supported yet: deduplicate in ForeachBatch, or MERGE the joined rows into a table")
		}
		if s.Agg != nil {
			return fmt.Errorf("an aggregation after a stream-stream join is not supported yet: write the joined rows to a table and aggregate that stream, or aggregate each micro-batch in ForeachBatch")
		}
		s.StreamJoin = ss
		s.Leaf = j
		for _, sh := range ss.Sides {
			if s.Watermark == nil && sh.Watermark != nil {
				s.Watermark = sh.Watermark
			}
		}
		return nil
	}
	stream := j.Left
	if rs {
		stream = j.Right
	}
	sh, err := Analyze(stream)
	if err != nil {
		return err
	}
	if sh.Agg != nil || sh.Sort != nil || sh.Limit != nil {
		return fmt.Errorf("a streaming aggregation, sort or limit before a stream-static join is not supported: join first, then aggregate")
	}
	if sh.StreamJoin != nil {
		return fmt.Errorf("a stream-static join after a stream-stream join is not supported yet")
	}
	if sh.Dedup != nil {
		if s.Dedup != nil {
			return fmt.Errorf("one deduplication per query is supported: deduplicate before or after the join, not both")
		}
		s.Dedup = sh.Dedup
	}
	s.Leaf = sh.Leaf
	s.Pre = append(append(append([]Node{}, sh.Pre...), j), s.Pre...)
	s.StaticJoins += sh.StaticJoins + 1
	if s.Watermark == nil {
		s.Watermark = sh.Watermark
	}
	return nil
}

// checkStreamJoinType applies Spark's rules on which join types a stream
// may take part in.
func checkStreamJoinType(j *Join, ls, rs bool) error {
	switch j.Type {
	case InnerJoin, CrossJoin:
		return nil
	case FullOuterJoin:
		if ls && !rs {
			return fmt.Errorf("FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported: use a left outer join (\"left\") to keep every streaming row")
		}
		if rs && !ls {
			return fmt.Errorf("FullOuter joins with streaming DataFrames/Datasets on the right and a static DataFrame/Dataset on the left is not supported: use a right outer join (\"right\") to keep every streaming row")
		}
	case LeftAntiJoin:
		if rs {
			return fmt.Errorf("LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported: put the stream on the left")
		}
	case LeftSemiJoin:
		if rs && !ls {
			return fmt.Errorf("LeftSemi join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported: put the stream on the left")
		}
	case LeftOuterJoin:
		if rs && !ls {
			return fmt.Errorf("LeftOuter join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported: put the stream on the left, or use a right outer join")
		}
	case RightOuterJoin:
		if ls && !rs {
			return fmt.Errorf("RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported: use a left outer join (\"left\") with the stream on the left")
		}
	}
	if ls && rs {
		return checkStreamStreamWatermark(j)
	}
	return nil
}

// checkStreamStreamWatermark is Spark's checkForStreamStreamJoinWatermark:
// an outer join can emit its null rows only once the nullable side's rows
// can no longer match, so it needs a watermark in the join keys, or a
// watermark on the other side and a time-range condition bounding this
// side's event time from it.
func checkStreamStreamWatermark(j *Join) error {
	if j.Type == InnerJoin || j.Type == CrossJoin {
		return nil
	}
	if j.WatermarkInKeys() {
		return nil
	}
	const probe = 1000000
	var ok bool
	switch j.Type {
	case LeftOuterJoin, LeftSemiJoin:
		_, ok = j.StateValueWatermark(0, probe)
	case RightOuterJoin:
		_, ok = j.StateValueWatermark(1, probe)
	case FullOuterJoin:
		_, okL := j.StateValueWatermark(0, probe)
		_, okR := j.StateValueWatermark(1, probe)
		ok = okL || okR
	}
	if ok {
		return nil
	}
	return fmt.Errorf("Stream-stream %s join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition: "+
		"add WithWatermark(...) on both sides and a condition bounding one side's event time by the other's, e.g. "+
		"Col(\"clickTime\").Geq(Col(\"impressionTime\")).And(Col(\"clickTime\").Leq(Col(\"impressionTime\").Plus(Expr(\"INTERVAL 1 HOUR\"))))", j.Type)
}

// validateStreamStream applies the output-mode rule of stream-stream
// joins.
func validateStreamStream(s *Shape, mode sink.OutputMode) error {
	if s.StreamJoin == nil {
		return nil
	}
	if mode != sink.Append {
		return fmt.Errorf("Join between two streaming DataFrames/Datasets is not supported in %s output mode, only in Append output mode: use OutputMode(\"append\")", mode)
	}
	return nil
}

// WatermarkInKeys reports whether an equi-join key on either side is the
// watermarked event-time column (Spark's isWatermarkInJoinKeys), such as a
// join on window(leftTime) = window(rightTime).
func (j *Join) WatermarkInKeys() bool {
	_, ok := j.KeyWatermarkOrdinal()
	return ok
}

// KeyWatermarkOrdinal is the index of the first equi-join key that reads
// the event-time column on the left side, else on the right side.
func (j *Join) KeyWatermarkOrdinal() (int, bool) {
	for _, side := range []struct {
		keys []expr.Expr
		s    *arrow.Schema
	}{{j.LeftKeys, j.Left.Schema()}, {j.RightKeys, j.Right.Schema()}} {
		for i, k := range side.keys {
			if b, err := k.Bind(side.s); err == nil && expr.IsEventTime(b) {
				return i, true
			}
		}
	}
	return 0, false
}

// WatermarkColumn is the index of the event-time column of a side (the
// first column carrying a watermark delay), or -1.
func (j *Join) WatermarkColumn(side int) int {
	s := j.Left.Schema()
	if side == 1 {
		s = j.Right.Schema()
	}
	for i, f := range s.Fields() {
		if f.HasMetadata() && f.Metadata.FindKey(expr.MetaWatermarkDelay) >= 0 {
			return i
		}
	}
	return -1
}

// term is one summand of a time condition in canonical form: a side's
// column (side 0 or 1, wm when it is that side's event-time column) or a
// constant (side -1, micros), negated or not.
type term struct {
	side   int
	name   string
	wm     bool
	neg    bool
	micros float64
}

// StateValueWatermark is Spark's StreamingJoinHelper.getStateValueWatermark:
// from the conjuncts of the join condition of the form
// otherTime + c1 < stateTime + c2 (or <=, >, >=), with the other side's
// event time replaced by the event-time watermark (ms), it derives the
// event time (ms) at or below which a row of side can never match a future
// row of the other side; the smallest over all such conjuncts. ok is false
// when no conjunct gives one.
func (j *Join) StateValueWatermark(side int, eventWatermark int64) (int64, bool) {
	if j.Cond == nil || j.WatermarkColumn(1-side) < 0 {
		return 0, false
	}
	found := false
	var best int64
	for _, c := range Conjuncts(j.Cond) {
		b, ok := c.(*expr.Binary)
		if !ok {
			continue
		}
		var w int64
		switch b.Op {
		case "<":
			w, ok = j.lessThanWatermark(b.L, b.R, side, eventWatermark)
		case "<=":
			w, ok = j.lessThanWatermark(b.L, b.R, side, eventWatermark)
			w--
		case ">":
			w, ok = j.lessThanWatermark(b.R, b.L, side, eventWatermark)
		case ">=":
			w, ok = j.lessThanWatermark(b.R, b.L, side, eventWatermark)
			w--
		default:
			ok = false
		}
		if ok && (!found || w < best) {
			best, found = w, true
		}
	}
	return best, found
}

// lessThanWatermark solves l < r for the state side's time, as Spark's
// getStateWatermarkFromLessThenPredicate: l - r is split into terms; the
// state side's time must appear once, negated; every other column must be
// the other side's event time, replaced by the watermark.
func (j *Join) lessThanWatermark(l, r expr.Expr, side int, wm int64) (int64, bool) {
	var terms []term
	if !j.collectTerms(l, false, &terms) || !j.collectTerms(r, true, &terms) {
		return 0, false
	}
	names := [2]map[string]bool{{}, {}}
	var constraint *term
	for i, t := range terms {
		if t.side < 0 {
			continue
		}
		names[t.side][t.name] = true
		if t.side == side {
			if constraint != nil {
				return 0, false
			}
			constraint = &terms[i]
		}
	}
	if len(names[0]) > 1 || len(names[1]) > 1 || constraint == nil || !constraint.neg {
		return 0, false
	}
	var sum float64
	for _, t := range terms {
		v := t.micros
		switch {
		case t.side == side:
			continue
		case t.side >= 0 && !t.wm:
			return 0, false
		case t.side >= 0:
			v = float64(wm) * 1000
		}
		if t.neg {
			v = -v
		}
		sum += v
	}
	return int64(sum / 1000), true
}

// collectTerms splits e into summands (Spark's collectTerms).
func (j *Join) collectTerms(e expr.Expr, neg bool, out *[]term) bool {
	switch x := e.(type) {
	case *expr.Binary:
		switch x.Op {
		case "+":
			return j.collectTerms(x.L, neg, out) && j.collectTerms(x.R, neg, out)
		case "-":
			return j.collectTerms(x.L, neg, out) && j.collectTerms(x.R, !neg, out)
		}
		return false
	case *expr.Cast:
		switch x.TypeName {
		case "timestamp", "bigint", "long", "int", "integer", "double", "float":
			return j.collectTerms(x.X, neg, out)
		}
		return false
	case *expr.ColumnRef:
		nl := j.Left.Schema().NumFields()
		for side, view := range []*arrow.Schema{maskSchema(j.Pair, nl, j.Pair.NumFields()), maskSchema(j.Pair, 0, nl)} {
			if b, err := x.Bind(view); err == nil {
				if f, ok := expr.SourceField(b); ok && f.Type.ID() == arrow.TIMESTAMP || ok && isNumber(f.Type) {
					*out = append(*out, term{side: side, name: f.Name, wm: expr.IsEventTime(b), neg: neg})
					return true
				}
				return false
			}
		}
		return false
	case *expr.Literal:
		var us float64
		switch v := x.Value.(type) {
		case time.Duration:
			us = float64(v.Microseconds())
		case time.Time:
			us = float64(v.UnixMicro())
		case int64:
			us = float64(v) * 1e6
		case int32:
			us = float64(v) * 1e6
		case float64:
			us = v * 1e6
		default:
			return false
		}
		*out = append(*out, term{side: -1, micros: us, neg: neg})
		return true
	}
	return false
}
