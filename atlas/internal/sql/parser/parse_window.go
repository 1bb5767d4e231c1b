package parser

import "strings"

// WindowSpec is the OVER clause of a window function call:
// OVER ([PARTITION BY e, ...] [ORDER BY k, ...] [frame]) or OVER name, a
// window the query's WINDOW clause defines (the parser substitutes the
// definition, so a parsed WindowSpec has an empty Name).
type WindowSpec struct {
	// Name is the named window referenced before its definition is
	// substituted.
	Name        string
	PartitionBy []Expr
	OrderBy     []*OrderItem
	// Frame is the ROWS or RANGE frame, nil for Spark's default.
	Frame *WindowFrame
	At    Position
}

// WindowFrame is ROWS|RANGE BETWEEN Start AND End (or ROWS|RANGE Start,
// whose End is CURRENT ROW).
type WindowFrame struct {
	// Rows is true for a ROWS frame, false for RANGE.
	Rows       bool
	Start, End FrameBound
}

// BoundKind is the kind of one frame boundary.
type BoundKind int

// The frame boundaries.
const (
	UnboundedPreceding BoundKind = iota
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// FrameBound is one boundary of a frame; Offset is set for Preceding and
// Following (n PRECEDING, INTERVAL '1' DAY FOLLOWING).
type FrameBound struct {
	Kind   BoundKind
	Offset Expr
}

// windowSuffix parses what may follow a call's closing parenthesis in a
// window function call: [IGNORE NULLS | RESPECT NULLS] OVER (spec) | OVER
// name.
func (p *parser) windowSuffix(c *Call) {
	// overAt reports whether OVER (... or OVER name starts k tokens ahead.
	overAt := func(k int) bool {
		next := p.look(k + 1)
		return p.look(k).is("OVER") && (next.isOp("(") || next.kind == tokIdent || next.kind == tokQuotedIdent)
	}
	if (p.at("IGNORE") || p.at("RESPECT")) && p.look(1).is("NULLS") && overAt(2) {
		c.IgnoreNulls = p.advance().is("IGNORE")
		p.advance()
	}
	if !overAt(0) {
		return
	}
	kw := p.advance()
	if !p.atOp("(") {
		name, _ := p.ident("a window name", "after OVER")
		c.Over = &WindowSpec{Name: name, At: kw.pos}
		return
	}
	c.Over = p.windowSpec(kw.pos)
}

// windowSpec parses ( [PARTITION BY ...] [ORDER BY ...] [frame] ).
func (p *parser) windowSpec(at Position) *WindowSpec {
	open := p.advance()
	w := &WindowSpec{At: at}
	if p.at("PARTITION") || p.at("DISTRIBUTE") {
		p.advance()
		p.expect("BY", "after PARTITION")
		w.PartitionBy = p.exprList()
	}
	if p.at("ORDER") || p.at("SORT") {
		p.advance()
		p.expect("BY", "after ORDER")
		w.OrderBy = append(w.OrderBy, p.orderItem())
		for p.acceptOp(",") {
			w.OrderBy = append(w.OrderBy, p.orderItem())
		}
	}
	if p.at("ROWS") || p.at("RANGE") {
		f := &WindowFrame{Rows: p.advance().is("ROWS")}
		if p.accept("BETWEEN") {
			f.Start = p.frameBound()
			p.expect("AND", "between the frame's boundaries")
			f.End = p.frameBound()
		} else {
			f.Start = p.frameBound()
			f.End = FrameBound{Kind: CurrentRow}
		}
		w.Frame = f
	}
	p.closeParen(open, "the window specification")
	return w
}

// frameBound parses UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW or
// expr PRECEDING|FOLLOWING.
func (p *parser) frameBound() FrameBound {
	switch {
	case p.at("UNBOUNDED"):
		p.advance()
		if p.accept("PRECEDING") {
			return FrameBound{Kind: UnboundedPreceding}
		}
		if p.accept("FOLLOWING") {
			return FrameBound{Kind: UnboundedFollowing}
		}
		p.expected("PRECEDING or FOLLOWING", "after UNBOUNDED", "")
	case p.at("CURRENT") && p.look(1).is("ROW"):
		p.advance()
		p.advance()
		return FrameBound{Kind: CurrentRow}
	}
	off := p.primaryOffset()
	if p.accept("PRECEDING") {
		return FrameBound{Kind: Preceding, Offset: off}
	}
	if p.accept("FOLLOWING") {
		return FrameBound{Kind: Following, Offset: off}
	}
	p.expected("PRECEDING or FOLLOWING", "after the frame offset", "")
	return FrameBound{}
}

// primaryOffset parses a frame offset: an additive expression (a number,
// an interval literal, 1 + 1).
func (p *parser) primaryOffset() Expr {
	return p.expr()
}

// windowClause parses WINDOW name AS (spec) {, name AS (spec)} and
// substitutes the definitions into the OVER name references of s.
func (p *parser) windowClause(s *Select) {
	kw := p.advance()
	defs := map[string]*WindowSpec{}
	for {
		name, _ := p.ident("a window name", "in WINDOW")
		p.expect("AS", "after the window name "+name)
		var w *WindowSpec
		if p.atOp("(") {
			w = p.windowSpec(p.tok().pos)
		} else {
			ref, at := p.ident("a window name or '('", "after AS")
			d, ok := defs[strings.ToLower(ref)]
			if !ok {
				p.failAt(at, "", "window %s is not defined before %s", ref, name)
			}
			w = d
		}
		defs[strings.ToLower(name)] = w
		if !p.acceptOp(",") {
			break
		}
	}
	var missing *WindowSpec
	resolve := func(e Expr) bool {
		if c, ok := e.(*Call); ok && c.Over != nil && c.Over.Name != "" {
			d, ok := defs[strings.ToLower(c.Over.Name)]
			if !ok {
				missing = c.Over
				return false
			}
			at := c.Over.At
			cp := *d
			cp.At = at
			c.Over = &cp
		}
		return missing == nil
	}
	for _, it := range s.Items {
		Inspect(it.Expr, resolve)
	}
	if missing != nil {
		p.failAt(missing.At, "define it in the WINDOW clause", "[MISSING_WINDOW_SPECIFICATION] window %s is not defined", missing.Name)
	}
	_ = kw
}

// checkWindowNames fails on an OVER name that no WINDOW clause defined.
func (p *parser) checkWindowNames(s *Select) {
	for _, it := range s.Items {
		Inspect(it.Expr, func(e Expr) bool {
			if c, ok := e.(*Call); ok && c.Over != nil && c.Over.Name != "" {
				p.failAt(c.Over.At, "define it with WINDOW "+c.Over.Name+" AS (...) after HAVING", "[MISSING_WINDOW_SPECIFICATION] window %s is not defined", c.Over.Name)
			}
			return true
		})
	}
}

// over writes a call's IGNORE NULLS and OVER clause.
func (p *printer) over(e *Call) {
	if e.IgnoreNulls && !p.pretty {
		p.w(" IGNORE NULLS")
	}
	w := e.Over
	if w == nil {
		return
	}
	if w.Name != "" {
		p.w(" OVER ", quoteIdent(w.Name))
		return
	}
	p.w(" OVER (")
	sep := ""
	if len(w.PartitionBy) > 0 {
		p.w("PARTITION BY ")
		p.list(w.PartitionBy)
		sep = " "
	}
	if len(w.OrderBy) > 0 {
		p.w(sep, "ORDER BY ")
		for i, o := range w.OrderBy {
			if i > 0 {
				p.w(", ")
			}
			p.expr(o.Expr)
			switch {
			case p.pretty && o.Desc:
				p.w(" DESC")
			case p.pretty:
				p.w(" ASC")
			case o.Desc:
				p.w(" DESC")
			}
			switch {
			case o.Nulls == NullsFirst || (p.pretty && o.Nulls == NullsDefault && !o.Desc):
				p.w(" NULLS FIRST")
			case o.Nulls == NullsLast || (p.pretty && o.Nulls == NullsDefault && o.Desc):
				p.w(" NULLS LAST")
			}
		}
		sep = " "
	}
	if f := w.Frame; f != nil {
		p.w(sep)
		if f.Rows {
			p.w("ROWS BETWEEN ")
		} else {
			p.w("RANGE BETWEEN ")
		}
		p.bound(f.Start)
		p.w(" AND ")
		p.bound(f.End)
	}
	p.w(")")
}

func (p *printer) bound(b FrameBound) {
	switch b.Kind {
	case UnboundedPreceding:
		p.w("UNBOUNDED PRECEDING")
	case UnboundedFollowing:
		p.w("UNBOUNDED FOLLOWING")
	case CurrentRow:
		p.w("CURRENT ROW")
	case Preceding:
		p.expr(b.Offset)
		p.w(" PRECEDING")
	case Following:
		p.expr(b.Offset)
		p.w(" FOLLOWING")
	}
}

// Pos returns where OVER starts.
func (w *WindowSpec) Pos() Position { return w.At }
