package engine

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// Join joins with other, as DataFrame.join(other, on, how) in PySpark.
// on is a column name or a []string of names present on both sides (the
// join is then on equality of those columns, which appear once in the
// output, first), or a boolean Column condition (every column of both
// sides is kept; name columns of the same name through Alias), or nil for
// a cross join. how is one of inner (the default), left / left_outer,
// right / right_outer, full / outer / full_outer, left_semi, left_anti,
// cross. A null key never equals anything, including another null.
//
// Streaming DataFrames follow Spark's rules, checked at Start: a stream
// joins a static DataFrame with inner, left outer (stream on the left),
// left semi and left anti joins; two streams join in append mode with
// inner, left outer, right outer and full outer joins, where an outer join
// needs a watermark on both sides and a time-range condition between
// their event times (clicks.ts BETWEEN impressions.ts AND impressions.ts +
// INTERVAL 1 HOUR) from which the state's eviction is derived.
func (df *DataFrame) Join(other *DataFrame, on any, how ...string) *DataFrame {
	if df.failed() {
		return df
	}
	if other == nil {
		return df.with(nil, fmt.Errorf("join: the other DataFrame is nil"))
	}
	if err := other.Err(); err != nil {
		return df.with(nil, fmt.Errorf("join: the other DataFrame: %w", err))
	}
	h := ""
	if len(how) > 0 {
		h = how[0]
	}
	typ, err := plan.ParseJoinType(h)
	if err != nil {
		return df.with(nil, fmt.Errorf("join: %w", err))
	}
	var j *plan.Join
	switch x := on.(type) {
	case nil:
		if typ == plan.InnerJoin {
			typ = plan.CrossJoin
		}
		j, err = plan.NewJoin(df.node, other.node, typ, nil)
	case string:
		j, err = plan.NewUsingJoin(df.node, other.node, typ, []string{x})
	case []string:
		j, err = plan.NewUsingJoin(df.node, other.node, typ, x)
	case Column:
		if x.err != nil {
			return df.with(nil, fmt.Errorf("join: %w", x.err))
		}
		if x.agg != nil {
			return df.with(nil, fmt.Errorf("join: the condition %s is an aggregate", x))
		}
		j, err = plan.NewJoin(df.node, other.node, typ, x.e)
	default:
		return df.with(nil, fmt.Errorf("join: on must be a column name, a []string of names or a Column condition, got %T", on))
	}
	if err != nil {
		return df.with(nil, fmt.Errorf("join: %w", err))
	}
	return df.with(j, nil)
}

// CrossJoin is the cartesian product with other, as crossJoin.
func (df *DataFrame) CrossJoin(other *DataFrame) *DataFrame { return df.Join(other, nil, "cross") }

// Alias names the DataFrame, as DataFrame.alias: its columns can then be
// referred to as Col("alias.column"), which tells apart columns of the same
// name on the two sides of a join.
func (df *DataFrame) Alias(alias string) *DataFrame {
	if df.failed() {
		return df
	}
	if alias == "" {
		return df.with(nil, fmt.Errorf("alias: the name must not be empty"))
	}
	return df.with(plan.NewSubqueryAlias(df.node, alias), nil)
}

// Broadcast marks a DataFrame as small enough to send to every task, as
// pyspark.sql.functions.broadcast. Atlas joins in one process, so the hint
// changes nothing; it is accepted so that Spark code ports unchanged.
func Broadcast(df *DataFrame) *DataFrame { return df }

// PlanCol refers to column name of the DataFrame Spark Connect numbered
// planID, as PySpark's df["name"] sends it: after a join of DataFrames
// that both have the column, the one of that DataFrame is meant. Where no
// join input carries the id, it resolves by name as Col.
func PlanCol(name string, planID int64) Column {
	return newCol(&expr.ColumnRef{Parts: []string{name}, PlanID: planID})
}

// WithPlanIDs tags the DataFrame's columns with Spark Connect plan ids
// (its relation's and those of the relations it was built from), so that
// PlanCol(name, id) finds them after a join.
func (df *DataFrame) WithPlanIDs(planIDs ...int64) *DataFrame {
	if df.failed() || len(planIDs) == 0 {
		return df
	}
	return df.with(plan.NewPlanIDTag(df.node, planIDs), nil)
}
