package engine

import (
	"context"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/table"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
)

// DataFrame is a lazily evaluated query, streaming (from ReadStream) or
// batch (from Session.Table, SQL, or a foreachBatch micro-batch), as
// pyspark.sql.DataFrame. Methods return new DataFrames; the first error is
// kept and reported by Err and by whatever runs the plan.
type DataFrame struct {
	s    *Session
	node plan.Node
	err  error
}

func (df *DataFrame) with(n plan.Node, err error) *DataFrame {
	if err != nil {
		return &DataFrame{s: df.s, node: df.node, err: err}
	}
	return &DataFrame{s: df.s, node: n}
}

func (df *DataFrame) failed() bool { return df == nil || df.err != nil || df.node == nil }

// Err returns the first error met while building the DataFrame.
func (df *DataFrame) Err() error {
	if df == nil {
		return fmt.Errorf("nil DataFrame")
	}
	if df.err == nil && df.node == nil {
		return fmt.Errorf("empty DataFrame")
	}
	return df.err
}

// Session returns the session the DataFrame belongs to.
func (df *DataFrame) Session() *Session { return df.s }

// IsStreaming reports whether the DataFrame reads a stream.
func (df *DataFrame) IsStreaming() bool { return !df.failed() && df.node.IsStreaming() }

// Schema returns the Arrow schema (nil when the DataFrame has an error).
func (df *DataFrame) Schema() *arrow.Schema {
	if df.failed() {
		return nil
	}
	return df.node.Schema()
}

// Columns returns the column names.
func (df *DataFrame) Columns() []string {
	s := df.Schema()
	if s == nil {
		return nil
	}
	out := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = f.Name
	}
	return out
}

// SchemaString renders the schema as printSchema does.
func (df *DataFrame) SchemaString() string {
	if df.failed() {
		return "error: " + df.Err().Error() + "\n"
	}
	return types.TreeString(df.node.Schema())
}

// PrintSchema prints the schema tree.
func (df *DataFrame) PrintSchema() { fmt.Print(df.SchemaString()) }

// ExplainString renders the logical plan.
func (df *DataFrame) ExplainString() string {
	if df.failed() {
		return "error: " + df.Err().Error() + "\n"
	}
	return plan.Explain(df.node)
}

// Explain prints the logical plan.
func (df *DataFrame) Explain() { fmt.Print(df.ExplainString()) }

// Select projects columns: names, Columns, or "data.*" to expand a struct.
func (df *DataFrame) Select(columns ...any) *DataFrame {
	if df.failed() {
		return df
	}
	cs, err := cols(columns)
	if err != nil {
		return df.with(nil, fmt.Errorf("select: %w", err))
	}
	es := make([]expr.Expr, len(cs))
	for i, c := range cs {
		if c.agg != nil {
			return df.with(nil, fmt.Errorf("select: aggregate %s needs GroupBy(...).Agg(...)", c.agg.Name()))
		}
		es[i] = c.e
	}
	in := df.afterSortOrLimit()
	if plan.HasGenerator(es) {
		g, err := plan.NewGenerate(in, es)
		if err != nil {
			return df.with(nil, fmt.Errorf("select: %w", err))
		}
		return df.with(g, nil)
	}
	p, err := plan.NewProject(in, es)
	if err != nil {
		return df.with(nil, fmt.Errorf("select: %w", err))
	}
	return df.with(p, nil)
}

// SelectExpr projects SQL expressions ("CAST(value AS STRING)", "count * 2 AS twice").
func (df *DataFrame) SelectExpr(exprs ...string) *DataFrame {
	if df.failed() {
		return df
	}
	items := make([]any, len(exprs))
	for i, s := range exprs {
		c, err := parseExprWith(df.s.ParserOptions(), s)
		if err != nil {
			return df.with(nil, fmt.Errorf("selectExpr: %w", err))
		}
		items[i] = c
	}
	return df.Select(items...)
}

// Where keeps rows where the condition holds; the condition is a Column or
// a SQL string ("event = 'click'").
func (df *DataFrame) Where(cond any) *DataFrame {
	if df.failed() {
		return df
	}
	var c Column
	switch x := cond.(type) {
	case Column:
		c = x
	case string:
		var err error
		if c, err = parseExprWith(df.s.ParserOptions(), x); err != nil {
			return df.with(nil, fmt.Errorf("where: %w", err))
		}
	default:
		return df.with(nil, fmt.Errorf("where: expected a Column or a SQL string, got %T", cond))
	}
	if c.err != nil {
		return df.with(nil, c.err)
	}
	f, err := plan.NewFilter(df.afterSortOrLimit(), c.e)
	if err != nil {
		return df.with(nil, fmt.Errorf("where: %w", err))
	}
	return df.with(f, nil)
}

// Filter is Where.
func (df *DataFrame) Filter(cond any) *DataFrame { return df.Where(cond) }

// WithColumn adds or replaces a column.
func (df *DataFrame) WithColumn(name string, c Column) *DataFrame {
	if df.failed() {
		return df
	}
	if c.err != nil {
		return df.with(nil, c.err)
	}
	var items []any
	replaced := false
	for i, f := range df.node.Schema().Fields() {
		if f.Name == name {
			items = append(items, c.Alias(name))
			replaced = true
			continue
		}
		items = append(items, colAt(f.Name, i))
	}
	if !replaced {
		items = append(items, c.Alias(name))
	}
	return df.Select(items...)
}

// WithColumnRenamed renames a column.
func (df *DataFrame) WithColumnRenamed(existing, name string) *DataFrame {
	if df.failed() {
		return df
	}
	var items []any
	for i, f := range df.node.Schema().Fields() {
		c := colAt(f.Name, i)
		if f.Name == existing {
			c = c.Alias(name)
		}
		items = append(items, c)
	}
	return df.Select(items...)
}

// Drop removes columns by name.
func (df *DataFrame) Drop(names ...string) *DataFrame {
	if df.failed() {
		return df
	}
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	var items []any
	for i, f := range df.node.Schema().Fields() {
		if !drop[f.Name] {
			items = append(items, colAt(f.Name, i))
		}
	}
	return df.Select(items...)
}

// colAt refers to column i, named name, of the DataFrame's own schema: it
// stays unambiguous when a join gave two columns that name.
func colAt(name string, i int) Column {
	return newCol(&expr.ColumnRef{Parts: []string{name}, Ordinal: i + 1})
}

// WithWatermark declares eventTime as the event-time column and how late
// data may arrive ("10 minutes" or a time.Duration), as
// withWatermark(eventTime, delayThreshold). The watermark is the largest
// event time seen minus the delay, advanced at the end of each micro-batch;
// in append mode a window is emitted once the watermark passes its end,
// and rows for windows already emitted are dropped and counted in
// numRowsDroppedByWatermark (and in the live view), never silently.
func (df *DataFrame) WithWatermark(eventTime string, delay any) *DataFrame {
	if df.failed() {
		return df
	}
	d, err := toDuration(delay)
	if err != nil {
		return df.with(nil, fmt.Errorf("withWatermark: %w", err))
	}
	w, err := plan.NewWatermark(df.node, eventTime, d)
	return df.with(w, err)
}

// GroupBy groups by columns (names or Columns, such as Window(...)).
func (df *DataFrame) GroupBy(columns ...any) *GroupedData {
	return &GroupedData{df: df, keys: columns}
}

// OrderBy sorts (batch DataFrames, or a streaming aggregation in complete
// mode). Use Column.Desc() for descending order.
func (df *DataFrame) OrderBy(columns ...any) *DataFrame {
	if df.failed() {
		return df
	}
	cs, err := cols(columns)
	if err != nil {
		return df.with(nil, fmt.Errorf("orderBy: %w", err))
	}
	keys := make([]plan.SortKey, len(cs))
	for i, c := range cs {
		if s, ok := c.e.(*sortExpr); ok {
			keys[i] = plan.SortKey{Expr: s.Expr, Descending: s.desc}
			continue
		}
		keys[i] = plan.SortKey{Expr: c.e}
	}
	in := df.node
	if !in.IsStreaming() && hasNode[*plan.Limit](in) {
		in = plan.NewSubquery(in)
	}
	s, err := plan.NewSort(in, keys)
	if err != nil {
		return df.with(nil, fmt.Errorf("orderBy: %w", err))
	}
	return df.with(s, nil)
}

// Sort is OrderBy.
func (df *DataFrame) Sort(columns ...any) *DataFrame { return df.OrderBy(columns...) }

// Limit keeps the first n rows.
func (df *DataFrame) Limit(n int) *DataFrame {
	if df.failed() {
		return df
	}
	if n < 0 {
		return df.with(nil, fmt.Errorf("limit: n must not be negative, got %d", n))
	}
	return df.with(&plan.Limit{In: df.node, N: int64(n)}, nil)
}

// afterSortOrLimit is the node a projection or filter builds on: a batch
// plan that sorts or limits is run as a subquery first (the linear executor
// applies sort and limit last), so df.orderBy(...).select(...) and
// df.limit(n).filter(...) keep Spark's meaning: the rows of the sorted or
// limited input, in its order.
func (df *DataFrame) afterSortOrLimit() plan.Node {
	if !df.node.IsStreaming() && (hasNode[*plan.Sort](df.node) || hasNode[*plan.Limit](df.node)) {
		return plan.NewSubquery(df.node)
	}
	return df.node
}

// hasNode tells whether the linear chain from n down to its leaf has a
// node of type T.
func hasNode[T plan.Node](n plan.Node) bool {
	for ; n != nil; n = n.Input() {
		if _, ok := n.(T); ok {
			return true
		}
	}
	return false
}

// Collect runs a batch DataFrame and returns its rows as Arrow records
// (released by the caller).
func (df *DataFrame) Collect(ctx context.Context) (*arrow.Schema, []arrow.RecordBatch, error) {
	if err := df.Err(); err != nil {
		return nil, nil, err
	}
	return exec.Collect(df.s.castContext(ctx), df.node)
}

// Rows runs a batch DataFrame and returns its rows as Go values (nil,
// bool, int64, float64, string, time.Time, map[string]any for structs).
func (df *DataFrame) Rows(ctx context.Context) ([]Row, error) {
	schema, recs, err := df.Collect(ctx)
	if err != nil {
		return nil, err
	}
	defer releaseAll(recs)
	return toRows(schema, recs), nil
}

// Count runs a batch DataFrame and counts its rows.
func (df *DataFrame) Count(ctx context.Context) (int64, error) {
	_, recs, err := df.Collect(ctx)
	if err != nil {
		return 0, err
	}
	defer releaseAll(recs)
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	return n, nil
}

// Show prints the first n rows (20 by default) as a table: HTML in a
// notebook, text like Spark's show() elsewhere.
func (df *DataFrame) Show(n ...int) error {
	limit := 20
	if len(n) > 0 {
		limit = n[0]
	}
	return df.show(limit, true)
}

// ShowFull prints the first n rows without cutting long values to 20
// characters, as show(n, truncate=False).
func (df *DataFrame) ShowFull(n int) error { return df.show(n, false) }

func (df *DataFrame) show(limit int, truncate bool) error {
	schema, recs, err := df.Limit(limit + 1).Collect(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return err
	}
	defer releaseAll(recs)
	showTable(view.DetectSurface(), schema, recs, limit, truncate)
	return nil
}

// showTable shows records on s as show() does: an HTML table in a
// notebook, else the text table and a newline (Spark's show() is
// println(showString(...)), so an empty line follows the table).
func showTable(s view.Surface, schema *arrow.Schema, records []arrow.RecordBatch, maxRows int, truncate bool) {
	if s.HTML() {
		s.DisplayHTML(table.HTMLTable(schema, records, maxRows, truncate, ""))
		s.Sync()
		return
	}
	fmt.Fprintln(s.Text(), table.TextTable(schema, records, maxRows, truncate))
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// GroupedData is the result of GroupBy: aggregate it with Count or Agg.
type GroupedData struct {
	df   *DataFrame
	keys []any
}

// Count counts rows per group into a column named "count".
func (g *GroupedData) Count() *DataFrame {
	return g.Agg(aggCol("count", nil).Alias("count"))
}

// Agg computes aggregate columns per group: Count, Sum, Min, Max, Avg.
func (g *GroupedData) Agg(aggs ...Column) *DataFrame {
	df := g.df
	if df.failed() {
		return df
	}
	ks, err := cols(g.keys)
	if err != nil {
		return df.with(nil, fmt.Errorf("groupBy: %w", err))
	}
	keys := make([]expr.Expr, len(ks))
	for i, k := range ks {
		keys[i] = k.e
	}
	var fs []*expr.AggFunc
	for _, a := range aggs {
		if a.err != nil {
			return df.with(nil, a.err)
		}
		if a.agg == nil {
			return df.with(nil, fmt.Errorf("agg: %s is not an aggregate; use Count, Sum, Min, Max or Avg", a))
		}
		fs = append(fs, a.agg)
	}
	in := df.node
	if plan.NeedsSubquery(in) {
		// A batch DataFrame that already aggregated, sorted or limited
		// (groupBy().count().where(...).count(), as Spark allows) is
		// aggregated again over its collected rows.
		in = plan.NewSubquery(in)
	}
	n, err := plan.NewAggregate(in, keys, fs)
	if err != nil {
		return df.with(nil, fmt.Errorf("groupBy: %w", err))
	}
	return df.with(n, nil)
}

// Sum adds numeric columns per group.
func (g *GroupedData) Sum(columns ...string) *DataFrame {
	return g.simple("sum", columns)
}

// Avg averages numeric columns per group.
func (g *GroupedData) Avg(columns ...string) *DataFrame { return g.simple("avg", columns) }

// Min is the smallest value per group.
func (g *GroupedData) Min(columns ...string) *DataFrame { return g.simple("min", columns) }

// Max is the largest value per group.
func (g *GroupedData) Max(columns ...string) *DataFrame { return g.simple("max", columns) }

func (g *GroupedData) simple(fn string, columns []string) *DataFrame {
	aggs := make([]Column, len(columns))
	for i, c := range columns {
		col := Col(c)
		aggs[i] = aggCol(fn, &col)
	}
	return g.Agg(aggs...)
}
