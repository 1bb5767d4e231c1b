package atlas

import (
	"fmt"
	"strings"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// Join joins with other, as DataFrame.join(other, on, how): on is a column
// name or a []string of names on both sides (sent as using_columns), a
// Column condition (join_condition), or nil; how is inner (the default),
// outer / full / full_outer, left / left_outer, right / right_outer,
// left_semi / semi, left_anti / anti, or cross.
func (df *DataFrame) Join(other *DataFrame, on any, how ...string) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		if other == nil {
			return nil, fmt.Errorf("join: the other DataFrame is nil")
		}
		if other.err != nil {
			return nil, fmt.Errorf("join: the other DataFrame: %w", other.err)
		}
		h := ""
		if len(how) > 0 {
			h = how[0]
		}
		typ, err := joinType(h)
		if err != nil {
			return nil, err
		}
		j := &pb.Join{Left: in, Right: other.rel, JoinType: typ}
		switch x := on.(type) {
		case nil:
		case string:
			j.UsingColumns = []string{x}
		case []string:
			j.UsingColumns = x
		case Column:
			if x.err != nil {
				return nil, fmt.Errorf("join: %w", x.err)
			}
			j.JoinCondition = x.e
		default:
			return nil, fmt.Errorf("join: on must be a column name, a []string of names or a Column, got %T", on)
		}
		return &pb.Relation{RelType: &pb.Relation_Join{Join: j}}, nil
	})
}

// CrossJoin is the cartesian product with other, as crossJoin.
func (df *DataFrame) CrossJoin(other *DataFrame) *DataFrame { return df.Join(other, nil, "cross") }

// Alias names the DataFrame (a SubqueryAlias), so that Col("alias.column")
// tells its columns from the other side's in a join.
func (df *DataFrame) Alias(alias string) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		return &pb.Relation{RelType: &pb.Relation_SubqueryAlias{SubqueryAlias: &pb.SubqueryAlias{Input: in, Alias: alias}}}, nil
	})
}

// Broadcast marks df for a broadcast join, as functions.broadcast (a
// "broadcast" Hint relation).
func Broadcast(df *DataFrame) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		return &pb.Relation{RelType: &pb.Relation_Hint{Hint: &pb.Hint{Input: in, Name: "broadcast"}}}, nil
	})
}

// joinType maps how as PySpark's Connect client does.
func joinType(how string) (pb.Join_JoinType, error) {
	switch strings.ToLower(how) {
	case "", "inner":
		return pb.Join_JOIN_TYPE_INNER, nil
	case "outer", "full", "fullouter", "full_outer":
		return pb.Join_JOIN_TYPE_FULL_OUTER, nil
	case "leftouter", "left", "left_outer":
		return pb.Join_JOIN_TYPE_LEFT_OUTER, nil
	case "rightouter", "right", "right_outer":
		return pb.Join_JOIN_TYPE_RIGHT_OUTER, nil
	case "leftsemi", "left_semi", "semi":
		return pb.Join_JOIN_TYPE_LEFT_SEMI, nil
	case "leftanti", "left_anti", "anti":
		return pb.Join_JOIN_TYPE_LEFT_ANTI, nil
	case "cross":
		return pb.Join_JOIN_TYPE_CROSS, nil
	}
	return 0, fmt.Errorf("join: unsupported join type %q; use inner, outer, full, left, right, left_semi, left_anti or cross", how)
}

// Col is this DataFrame's column name, as df[name] or df.col(name) in
// PySpark: it carries the DataFrame's plan id, so that after a join of two
// DataFrames that both have the column, this one's is meant.
func (df *DataFrame) Col(name string) Column {
	if df.err != nil {
		return Column{err: df.err}
	}
	id := df.rel.GetCommon().GetPlanId()
	return Column{e: &pb.Expression{ExprType: &pb.Expression_UnresolvedAttribute_{UnresolvedAttribute: &pb.Expression_UnresolvedAttribute{UnparsedIdentifier: name, PlanId: &id}}}}
}
