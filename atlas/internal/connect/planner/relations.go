package planner

import (
	"context"
	"fmt"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Planner turns Spark Connect relations into DataFrames of one session.
type Planner struct {
	// Session is the engine session the relations read from (its temp
	// views, memory tables and lakehouse).
	Session *engine.Session
	// Logf logs warnings that do not fail a request, such as the Kafka
	// options a batch read ignores; nil discards them.
	Logf func(format string, args ...any)
}

func (p *Planner) warnf(format string, args ...any) {
	if p.Logf != nil {
		p.Logf(format, args...)
	}
}

// Relation plans rel into a DataFrame; nothing runs until the DataFrame is
// collected, except what Spark also runs eagerly (non-SELECT SQL).
func (p *Planner) Relation(ctx context.Context, rel *pb.Relation) (*engine.DataFrame, error) {
	if rel == nil {
		return nil, fmt.Errorf("a relation is required here, got none")
	}
	df, err := p.relation(ctx, rel)
	if err != nil {
		return nil, err
	}
	if err := df.Err(); err != nil {
		return nil, err
	}
	return df, nil
}

func (p *Planner) relation(ctx context.Context, rel *pb.Relation) (*engine.DataFrame, error) {
	if df, ok, err := p.moreRelation(ctx, rel); ok {
		return df, err
	}
	switch r := rel.GetRelType().(type) {
	case *pb.Relation_Read:
		return p.read(ctx, r.Read)
	case *pb.Relation_Sql:
		return p.sql(ctx, r.Sql)
	case *pb.Relation_LocalRelation:
		return p.localRelation(r.LocalRelation)
	case *pb.Relation_Project:
		return p.project(ctx, r.Project)
	case *pb.Relation_Filter:
		return p.filter(ctx, r.Filter)
	case *pb.Relation_Aggregate:
		return p.aggregate(ctx, r.Aggregate)
	case *pb.Relation_Sort:
		return p.sort(ctx, r.Sort)
	case *pb.Relation_Limit:
		in, err := p.Relation(ctx, r.Limit.GetInput())
		if err != nil {
			return nil, err
		}
		return in.Limit(int(r.Limit.GetLimit())), nil
	case *pb.Relation_SubqueryAlias:
		if len(r.SubqueryAlias.GetQualifier()) > 0 {
			return nil, unsupported("a qualified subquery alias", "")
		}
		in, err := p.Relation(ctx, r.SubqueryAlias.GetInput())
		if err != nil {
			return nil, err
		}
		return in.Alias(r.SubqueryAlias.GetAlias()), nil
	case *pb.Relation_Join:
		return p.join(ctx, r.Join)
	case *pb.Relation_Hint:
		return p.hint(ctx, r.Hint)
	case *pb.Relation_ShowString:
		return p.showString(ctx, r.ShowString)
	case *pb.Relation_HtmlString:
		return p.htmlString(ctx, r.HtmlString)
	case *pb.Relation_WithColumns:
		return p.withColumns(ctx, r.WithColumns)
	case *pb.Relation_WithColumnsRenamed:
		return p.withColumnsRenamed(ctx, r.WithColumnsRenamed)
	case *pb.Relation_Drop:
		return p.drop(ctx, r.Drop)
	case *pb.Relation_WithWatermark:
		in, err := p.Relation(ctx, r.WithWatermark.GetInput())
		if err != nil {
			return nil, err
		}
		return in.WithWatermark(r.WithWatermark.GetEventTime(), r.WithWatermark.GetDelayThreshold()), nil
	case *pb.Relation_Extension:
		return p.extension(ctx, r.Extension)
	case *pb.Relation_Deduplicate:
		return p.deduplicate(ctx, r.Deduplicate)
	case *pb.Relation_SetOp:
		return p.setOperation(ctx, r.SetOp)
	case nil:
		if len(rel.ProtoReflect().GetUnknown()) == 0 {
			return nil, fmt.Errorf("the relation has no type set")
		}
	}
	return nil, unsupported("relation "+OneofName(rel.ProtoReflect(), "rel_type"), "see the README's table of supported Spark Connect messages")
}

func (p *Planner) sql(ctx context.Context, q *pb.SQL) (*engine.DataFrame, error) {
	if len(q.GetArgs()) > 0 || len(q.GetPosArgs()) > 0 || len(q.GetNamedArguments()) > 0 || len(q.GetPosArguments()) > 0 {
		return nil, unsupported("SQL parameters (args)", "put the values in the query text")
	}
	return p.Session.SQLContext(ctx, q.GetQuery())
}

func (p *Planner) project(ctx context.Context, pr *pb.Project) (*engine.DataFrame, error) {
	if pr.GetInput() == nil {
		return nil, unsupported("a projection without an input relation", "select from a table, a view or a SQL query")
	}
	in, err := p.Relation(ctx, pr.GetInput())
	if err != nil {
		return nil, err
	}
	cols, err := columns(pr.GetExpressions())
	if err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	return in.Select(cols...), nil
}

func (p *Planner) filter(ctx context.Context, f *pb.Filter) (*engine.DataFrame, error) {
	in, err := p.Relation(ctx, f.GetInput())
	if err != nil {
		return nil, err
	}
	cond, err := Column(f.GetCondition())
	if err != nil {
		return nil, fmt.Errorf("filter: %w", err)
	}
	return in.Where(cond), nil
}

func (p *Planner) aggregate(ctx context.Context, a *pb.Aggregate) (*engine.DataFrame, error) {
	switch t := a.GetGroupType(); t {
	case pb.Aggregate_GROUP_TYPE_GROUPBY, pb.Aggregate_GROUP_TYPE_CUBE, pb.Aggregate_GROUP_TYPE_ROLLUP:
	default:
		return nil, unsupported("aggregate group type "+t.String(), "use groupBy, cube or rollup")
	}
	in, err := p.Relation(ctx, a.GetInput())
	if err != nil {
		return nil, err
	}
	keys, err := columns(a.GetGroupingExpressions())
	if err != nil {
		return nil, fmt.Errorf("groupBy: %w", err)
	}
	aggs := make([]engine.Column, len(a.GetAggregateExpressions()))
	for i, e := range a.GetAggregateExpressions() {
		if aggs[i], err = Column(e); err != nil {
			return nil, fmt.Errorf("agg: %w", err)
		}
	}
	switch a.GetGroupType() {
	case pb.Aggregate_GROUP_TYPE_CUBE:
		if len(keys) > maxCubeKeys {
			return nil, unsupported(fmt.Sprintf("cube over %d columns (%d grouping sets)", len(keys), uint64(1)<<min(len(keys), 63)), fmt.Sprintf("cube over at most %d columns, or rollup", maxCubeKeys))
		}
		return groupingSets(in, keys, aggs, cubeSets(len(keys)))
	case pb.Aggregate_GROUP_TYPE_ROLLUP:
		return groupingSets(in, keys, aggs, rollupSets(len(keys)))
	}
	return in.GroupBy(keys...).Agg(aggs...), nil
}

// maxCubeKeys bounds cube's columns: n columns are 2^n groupBys.
const maxCubeKeys = 6

// cubeSets are cube's grouping sets over n keys: every subset, as key
// indices, from all keys down to none.
func cubeSets(n int) [][]int {
	var sets [][]int
	for mask := 1<<n - 1; mask >= 0; mask-- {
		var set []int
		for i := range n {
			if mask&(1<<i) != 0 {
				set = append(set, i)
			}
		}
		sets = append(sets, set)
	}
	return sets
}

// rollupSets are rollup's grouping sets over n keys: every prefix, from
// all keys down to none.
func rollupSets(n int) [][]int {
	sets := make([][]int, 0, n+1)
	for k := n; k >= 0; k-- {
		set := make([]int, k)
		for i := range set {
			set[i] = i
		}
		sets = append(sets, set)
	}
	return sets
}

// groupingSets is Spark's cube and rollup: one groupBy per grouping set,
// the keys left out of a set null in its rows, the results unioned. The
// columns are the keys then the aggregates, as groupBy's.
func groupingSets(in *engine.DataFrame, keys []any, aggs []engine.Column, sets [][]int) (*engine.DataFrame, error) {
	const maxSets = 64
	if len(sets) > maxSets {
		return nil, unsupported(fmt.Sprintf("cube or rollup with %d grouping sets", len(sets)), fmt.Sprintf("group by at most %d sets", maxSets))
	}
	full := in.GroupBy(keys...).Agg(aggs...)
	if err := full.Err(); err != nil {
		return nil, err
	}
	fields := full.Schema().Fields()
	quote := func(name string) string { return "`" + name + "`" }
	var out *engine.DataFrame
	for _, set := range sets {
		sub := make([]any, len(set))
		for j, k := range set {
			sub[j] = keys[k]
		}
		g := in.GroupBy(sub...).Agg(aggs...)
		if err := g.Err(); err != nil {
			return nil, err
		}
		gf := g.Schema().Fields()
		cols := make([]any, 0, len(fields))
		j := 0
		for i := range keys {
			if j < len(set) && set[j] == i {
				cols = append(cols, engine.Col(quote(gf[j].Name)).Alias(fields[i].Name))
				j++
				continue
			}
			cols = append(cols, engine.Lit(nil).Cast(types.SQL(fields[i].Type)).Alias(fields[i].Name))
		}
		for m := len(keys); m < len(fields); m++ {
			cols = append(cols, engine.Col(quote(gf[len(set)+m-len(keys)].Name)).Alias(fields[m].Name))
		}
		part := g.Select(cols...)
		if out == nil {
			out = part
		} else {
			out = out.UnionAll(part)
		}
	}
	return out, out.Err()
}

func (p *Planner) sort(ctx context.Context, s *pb.Sort) (*engine.DataFrame, error) {
	in, err := p.Relation(ctx, s.GetInput())
	if err != nil {
		return nil, err
	}
	keys := make([]any, len(s.GetOrder()))
	for i, o := range s.GetOrder() {
		if keys[i], err = sortOrder(o); err != nil {
			return nil, fmt.Errorf("sort: %w", err)
		}
	}
	return in.OrderBy(keys...), nil
}

func (p *Planner) withColumns(ctx context.Context, w *pb.WithColumns) (*engine.DataFrame, error) {
	df, err := p.Relation(ctx, w.GetInput())
	if err != nil {
		return nil, err
	}
	for _, a := range w.GetAliases() {
		if len(a.GetName()) != 1 {
			return nil, unsupported("withColumns with a multi-part name", "")
		}
		c, err := Column(a.GetExpr())
		if err != nil {
			return nil, fmt.Errorf("withColumn(%q): %w", a.GetName()[0], err)
		}
		df = df.WithColumn(a.GetName()[0], c)
	}
	return df, nil
}

func (p *Planner) withColumnsRenamed(ctx context.Context, w *pb.WithColumnsRenamed) (*engine.DataFrame, error) {
	df, err := p.Relation(ctx, w.GetInput())
	if err != nil {
		return nil, err
	}
	for _, r := range w.GetRenames() {
		df = df.WithColumnRenamed(r.GetColName(), r.GetNewColName())
	}
	for from, to := range w.GetRenameColumnsMap() {
		df = df.WithColumnRenamed(from, to)
	}
	return df, nil
}

func (p *Planner) drop(ctx context.Context, d *pb.Drop) (*engine.DataFrame, error) {
	df, err := p.Relation(ctx, d.GetInput())
	if err != nil {
		return nil, err
	}
	names := append([]string{}, d.GetColumnNames()...)
	for _, c := range d.GetColumns() {
		attr := c.GetUnresolvedAttribute()
		if attr == nil {
			return nil, unsupported("drop by an expression", "drop columns by name")
		}
		names = append(names, attr.GetUnparsedIdentifier())
	}
	return df.Drop(names...), nil
}
