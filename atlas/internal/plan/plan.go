// Package plan holds the logical plan of a DataFrame: a chain of nodes
// (scan, project, filter, watermark, aggregate, sort, limit), each resolved
// against its input schema when it is built, so a wrong column name fails
// at the line that wrote it, as Spark's analyzer does. Validate applies
// Spark's rules for streaming queries (output modes, watermarks) before a
// query starts.
//
// A plan is an immutable description, shared by every DataFrame built on
// it and by any number of queries and batch actions running at once. It
// holds no evaluator and no source instance: each execution binds its own
// expressions (Project.Bind, Filter.Bind, Aggregate.Bind, Sort.Bind) and
// opens its own source (StreamScan.Open), because bound expressions
// (from_json's decoder) and sources (Kafka clients, read limits) keep
// per-execution state.
package plan

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Node is a logical plan node.
type Node interface {
	// Schema is the node's output schema.
	Schema() *arrow.Schema
	// Input is the child node, nil for a scan.
	Input() Node
	// IsStreaming reports whether the plan reads an unbounded source.
	IsStreaming() bool
	// Describe is the node's line in Explain.
	Describe() string
}

// StreamScan reads a streaming source. It describes the source; every
// streaming query opens its own instance with Open, so queries started from
// one DataFrame share no client, read limit, pinned end or buffer.
type StreamScan struct {
	Format string
	// Source is the source's description, "KafkaV2[Subscribe[events]]".
	Source string
	// Out is the source's fixed schema.
	Out *arrow.Schema
	// Open creates a new source instance; the caller closes it.
	Open func() (source.Source, error)
}

// NewStreamScan opens one instance of the source to check its options and
// learn its description and schema, closes it, and keeps open for the
// queries to come.
func NewStreamScan(format string, open func() (source.Source, error)) (*StreamScan, error) {
	src, err := open()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	return &StreamScan{Format: format, Source: src.Description(), Out: src.Schema(), Open: open}, nil
}

func (s *StreamScan) Schema() *arrow.Schema { return s.Out }
func (s *StreamScan) Input() Node           { return nil }
func (s *StreamScan) IsStreaming() bool     { return true }
func (s *StreamScan) Describe() string {
	return fmt.Sprintf("StreamingRelation %s, [%s]", s.Source, fieldNames(s.Schema()))
}

// LocalScan reads rows held in memory (a table scan result, a micro-batch
// handed to foreachBatch, a temp view).
type LocalScan struct {
	Name    string
	Out     *arrow.Schema
	Records []arrow.RecordBatch
	// Refresh, set for a catalog table, reads the table's current snapshot
	// (with Out's columns). The static side of a stream-static join reads
	// it each micro-batch, as Spark plans each batch afresh; nil for rows
	// that never change (a LocalRelation).
	Refresh func(ctx context.Context) ([]arrow.RecordBatch, error)
}

func (s *LocalScan) Schema() *arrow.Schema { return s.Out }
func (s *LocalScan) Input() Node           { return nil }
func (s *LocalScan) IsStreaming() bool     { return false }
func (s *LocalScan) Describe() string {
	return fmt.Sprintf("LocalRelation %s, [%s]", s.Name, fieldNames(s.Out))
}

// Project computes a list of expressions.
type Project struct {
	In Node
	// Exprs are the projected expressions, stars expanded.
	Exprs []expr.Expr
	Out   *arrow.Schema
}

// NewProject expands stars and resolves every expression against in.
func NewProject(in Node, exprs []expr.Expr) (*Project, error) {
	p := &Project{In: in}
	var fields []arrow.Field
	for _, e := range exprs {
		list := []expr.Expr{e}
		if st, ok := e.(*expr.Star); ok {
			var err error
			if list, err = st.Expand(in.Schema()); err != nil {
				return nil, err
			}
		}
		for _, x := range list {
			b, err := x.Bind(in.Schema())
			if err != nil {
				return nil, err
			}
			f := arrow.Field{Name: expr.OutputName(x), Type: b.Type(), Nullable: b.Nullable()}
			if isRef(x) {
				if src, ok := expr.SourceField(b); ok {
					f.Metadata = src.Metadata
				}
			}
			if w, ok := expr.AsWindow(b); ok && w.Def.Tumbling() && expr.IsEventTime(b) {
				// A window over the event time selected as a column keeps
				// the event-time tag, as Spark's window attribute does, so
				// GroupBy(Col("window")) is evicted by the watermark.
				f.Metadata = arrow.NewMetadata([]string{expr.MetaEventTimeWindow}, []string{"true"})
			}
			p.Exprs = append(p.Exprs, x)
			fields = append(fields, f)
		}
	}
	p.Out = arrow.NewSchema(fields, nil)
	return p, nil
}

func isRef(e expr.Expr) bool {
	if a, ok := e.(*expr.Alias); ok {
		e = a.Expr
	}
	_, ok := e.(*expr.ColumnRef)
	return ok
}

// Bind resolves the expressions for one execution: the result is that
// execution's alone (from_json keeps decoding buffers in it).
func (p *Project) Bind() ([]expr.Bound, error) { return bindAll(p.Exprs, p.In.Schema()) }

func bindAll(es []expr.Expr, s *arrow.Schema) ([]expr.Bound, error) {
	out := make([]expr.Bound, len(es))
	for i, e := range es {
		b, err := e.Bind(s)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func (p *Project) Schema() *arrow.Schema { return p.Out }
func (p *Project) Input() Node           { return p.In }
func (p *Project) IsStreaming() bool     { return p.In.IsStreaming() }
func (p *Project) Describe() string      { return "Project [" + exprList(p.Exprs) + "]" }

// Filter keeps rows where Cond is true.
type Filter struct {
	In   Node
	Cond expr.Expr
}

// NewFilter resolves a boolean condition.
func NewFilter(in Node, cond expr.Expr) (*Filter, error) {
	b, err := cond.Bind(in.Schema())
	if err != nil {
		return nil, err
	}
	if b.Type().ID() != arrow.BOOL {
		return nil, fmt.Errorf("filter condition %s must be boolean, got %s", cond, types.Name(b.Type()))
	}
	return &Filter{In: in, Cond: cond}, nil
}

// Bind resolves the condition for one execution.
func (f *Filter) Bind() (expr.Bound, error) { return f.Cond.Bind(f.In.Schema()) }

func (f *Filter) Schema() *arrow.Schema { return f.In.Schema() }
func (f *Filter) Input() Node           { return f.In }
func (f *Filter) IsStreaming() bool     { return f.In.IsStreaming() }
func (f *Filter) Describe() string      { return "Filter " + f.Cond.String() }

// Watermark marks Column as the event time and sets how late data may be.
type Watermark struct {
	In     Node
	Column string
	Delay  time.Duration
	Index  int
	Out    *arrow.Schema
}

// NewWatermark checks the column is a timestamp and tags it.
func NewWatermark(in Node, column string, delay time.Duration) (*Watermark, error) {
	if delay < 0 {
		return nil, fmt.Errorf("withWatermark(%q): delay must not be negative, got %s", column, delay)
	}
	idx := expr.FieldIndex(in.Schema(), column)
	if idx < 0 {
		return nil, fmt.Errorf("withWatermark: cannot resolve column %q given input columns [%s]; select the event-time column first (e.g. Select(\"data.*\"))", column, fieldNames(in.Schema()))
	}
	f := in.Schema().Field(idx)
	if f.Type.ID() != arrow.TIMESTAMP {
		return nil, fmt.Errorf("withWatermark(%q): the event-time column must be a timestamp, got %s", column, types.Name(f.Type))
	}
	fields := append([]arrow.Field{}, in.Schema().Fields()...)
	fields[idx].Metadata = arrow.NewMetadata([]string{expr.MetaWatermarkDelay}, []string{strconv.FormatInt(delay.Milliseconds(), 10)})
	return &Watermark{In: in, Column: f.Name, Delay: delay, Index: idx, Out: arrow.NewSchema(fields, nil)}, nil
}

func (w *Watermark) Schema() *arrow.Schema { return w.Out }
func (w *Watermark) Input() Node           { return w.In }
func (w *Watermark) IsStreaming() bool     { return w.In.IsStreaming() }
func (w *Watermark) Describe() string {
	return fmt.Sprintf("EventTimeWatermark %s, %s", w.Column, FormatDuration(w.Delay))
}

// Aggregate groups rows and computes aggregate functions.
type Aggregate struct {
	In       Node
	Keys     []expr.Expr
	Aggs     []*expr.AggFunc
	KeyNames []string
	// EvictKey is the index of the key the watermark applies to, or -1.
	EvictKey int
	Out      *arrow.Schema
}

// NewAggregate resolves keys and aggregates.
func NewAggregate(in Node, keys []expr.Expr, aggs []*expr.AggFunc) (*Aggregate, error) {
	a := &Aggregate{In: in, Keys: keys, Aggs: aggs, EvictKey: -1}
	var fields []arrow.Field
	for i, k := range keys {
		b, err := k.Bind(in.Schema())
		if err != nil {
			return nil, err
		}
		if (expr.IsEventTime(b) || expr.IsEventTimeWindow(b)) && a.EvictKey < 0 {
			a.EvictKey = i
		}
		name := expr.OutputName(k)
		a.KeyNames = append(a.KeyNames, name)
		f := arrow.Field{Name: name, Type: b.Type(), Nullable: true}
		if a.EvictKey == i && expr.IsEventTime(b) {
			// The event-time key (a window over the event time, or the
			// event time) keeps its watermark delay, as Spark's window
			// attribute does: an aggregation over this one's output
			// (GroupBy(Window(WindowTime(Col("window")), ...))) is then
			// evicted by the watermark too.
			if src, ok := expr.SourceField(b); ok {
				if v, ok := src.Metadata.GetValue(expr.MetaWatermarkDelay); ok {
					f.Metadata = arrow.NewMetadata([]string{expr.MetaWatermarkDelay}, []string{v})
				}
			}
		}
		fields = append(fields, f)
	}
	if len(aggs) == 0 {
		return nil, fmt.Errorf("agg: give at least one aggregate function, e.g. Count()")
	}
	for _, ag := range aggs {
		b, err := ag.Bind(in.Schema())
		if err != nil {
			return nil, err
		}
		fields = append(fields, arrow.Field{Name: b.Name, Type: b.Type, Nullable: b.Nullable()})
	}
	a.Out = arrow.NewSchema(fields, nil)
	return a, nil
}

// Bind resolves the grouping keys and aggregate functions for one execution.
func (a *Aggregate) Bind() ([]expr.Bound, []*expr.BoundAgg, error) {
	keys, err := bindAll(a.Keys, a.In.Schema())
	if err != nil {
		return nil, nil, err
	}
	aggs := make([]*expr.BoundAgg, len(a.Aggs))
	for i, ag := range a.Aggs {
		if aggs[i], err = ag.Bind(a.In.Schema()); err != nil {
			return nil, nil, err
		}
	}
	return keys, aggs, nil
}

func (a *Aggregate) Schema() *arrow.Schema { return a.Out }
func (a *Aggregate) Input() Node           { return a.In }
func (a *Aggregate) IsStreaming() bool     { return a.In.IsStreaming() }
func (a *Aggregate) Describe() string {
	aggs := make([]string, len(a.Aggs))
	for i, ag := range a.Aggs {
		aggs[i] = ag.Name()
	}
	return "Aggregate [" + exprList(a.Keys) + "], [" + strings.Join(aggs, ", ") + "]"
}

// SortKey orders by one expression.
type SortKey struct {
	Expr       expr.Expr
	Descending bool
	NullsFirst bool
}

// Sort orders rows (batch DataFrames, or streaming in complete mode).
type Sort struct {
	In   Node
	Keys []SortKey
}

// NewSort checks the sort keys resolve.
func NewSort(in Node, keys []SortKey) (*Sort, error) {
	keys = append([]SortKey(nil), keys...)
	for _, k := range keys {
		if _, err := k.Expr.Bind(in.Schema()); err != nil {
			return nil, err
		}
	}
	return &Sort{In: in, Keys: keys}, nil
}

// Bind resolves the sort keys' expressions for one execution, in Keys order.
func (s *Sort) Bind() ([]expr.Bound, error) {
	es := make([]expr.Expr, len(s.Keys))
	for i, k := range s.Keys {
		es[i] = k.Expr
	}
	return bindAll(es, s.In.Schema())
}

func (s *Sort) Schema() *arrow.Schema { return s.In.Schema() }
func (s *Sort) Input() Node           { return s.In }
func (s *Sort) IsStreaming() bool     { return s.In.IsStreaming() }
func (s *Sort) Describe() string {
	parts := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		dir := "ASC"
		if k.Descending {
			dir = "DESC"
		}
		parts[i] = k.Expr.String() + " " + dir
	}
	return "Sort [" + strings.Join(parts, ", ") + "]"
}

// Limit keeps the first N rows.
type Limit struct {
	In Node
	N  int64
}

func (l *Limit) Schema() *arrow.Schema { return l.In.Schema() }
func (l *Limit) Input() Node           { return l.In }
func (l *Limit) IsStreaming() bool     { return l.In.IsStreaming() }
func (l *Limit) Describe() string      { return "GlobalLimit " + strconv.FormatInt(l.N, 10) }

// Explain renders the plan as an indented tree, root first, like Spark's
// explain().
func Explain(n Node) string {
	var lines []string
	explainTree(n, "", "", &lines)
	return "== Logical Plan ==\n" + strings.Join(lines, "\n") + "\n"
}

// explainTree renders n under prefix; a join shows its left side as a
// ":- " branch and its right side as "+- ", as Spark's treeString.
func explainTree(n Node, first, rest string, lines *[]string) {
	for n != nil {
		*lines = append(*lines, first+n.Describe())
		if j, ok := n.(*Join); ok {
			explainTree(j.Left, rest+":- ", rest+":  ", lines)
			explainTree(j.Right, rest+"+- ", rest+"   ", lines)
			return
		}
		if u, ok := n.(*Union); ok {
			for i, in := range u.Inputs {
				if i < len(u.Inputs)-1 {
					explainTree(in, rest+":- ", rest+":  ", lines)
				} else {
					explainTree(in, rest+"+- ", rest+"   ", lines)
				}
			}
			return
		}
		first, rest = rest+"+- ", rest+"   "
		n = n.Input()
	}
}

func fieldNames(s *arrow.Schema) string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

func exprList(es []expr.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}
