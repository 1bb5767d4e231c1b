package planner

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// joinTypes maps Spark Connect's Join.JoinType to DataFrame.Join's how.
var joinTypes = map[pb.Join_JoinType]string{
	pb.Join_JOIN_TYPE_INNER:       "inner",
	pb.Join_JOIN_TYPE_FULL_OUTER:  "full_outer",
	pb.Join_JOIN_TYPE_LEFT_OUTER:  "left_outer",
	pb.Join_JOIN_TYPE_RIGHT_OUTER: "right_outer",
	pb.Join_JOIN_TYPE_LEFT_ANTI:   "left_anti",
	pb.Join_JOIN_TYPE_LEFT_SEMI:   "left_semi",
	pb.Join_JOIN_TYPE_CROSS:       "cross",
}

// join plans the Join relation PySpark sends for df.join(other, on, how)
// and df.crossJoin(other): using_columns for a name or a list of names,
// join_condition for a Column.
func (p *Planner) join(ctx context.Context, j *pb.Join) (*engine.DataFrame, error) {
	if j.JoinDataType != nil {
		return nil, unsupported("joinWith (Join.join_data_type)", "use join")
	}
	how, ok := joinTypes[j.GetJoinType()]
	if !ok {
		return nil, fmt.Errorf("join: join_type %s is not a join type; PySpark sends one of JOIN_TYPE_INNER, _FULL_OUTER, _LEFT_OUTER, _RIGHT_OUTER, _LEFT_ANTI, _LEFT_SEMI, _CROSS", j.GetJoinType())
	}
	left, err := p.Relation(ctx, j.GetLeft())
	if err != nil {
		return nil, fmt.Errorf("join: left: %w", err)
	}
	right, err := p.Relation(ctx, j.GetRight())
	if err != nil {
		return nil, fmt.Errorf("join: right: %w", err)
	}
	// df1["k"] == df2["k"] names each side by a plan id: its own or that of
	// a DataFrame it was built from.
	left = left.WithPlanIDs(planIDs(j.GetLeft().ProtoReflect(), nil)...)
	right = right.WithPlanIDs(planIDs(j.GetRight().ProtoReflect(), nil)...)
	var on any
	switch {
	case len(j.GetUsingColumns()) > 0 && j.GetJoinCondition() != nil:
		return nil, fmt.Errorf("join: give using_columns or join_condition, not both")
	case len(j.GetUsingColumns()) > 0:
		on = j.GetUsingColumns()
	case j.GetJoinCondition() != nil:
		c, err := Column(j.GetJoinCondition())
		if err != nil {
			return nil, fmt.Errorf("join condition: %w", err)
		}
		on = c
	}
	return left.Join(right, on, how), nil
}

// hint passes a plan through its hint: Atlas runs in one process, so
// broadcast, coalesce and the join strategy hints change nothing.
func (p *Planner) hint(ctx context.Context, h *pb.Hint) (*engine.DataFrame, error) {
	switch strings.ToLower(h.GetName()) {
	case "broadcast", "broadcastjoin", "mapjoin", "merge", "shuffle_merge", "mergejoin", "shuffle_hash", "shuffle_replicate_nl", "coalesce", "repartition", "rebalance":
		return p.Relation(ctx, h.GetInput())
	}
	return nil, unsupported("hint "+h.GetName(), "drop the hint")
}

// planIDs collects the plan ids of every relation in m (a relation tree).
func planIDs(m protoreflect.Message, out []int64) []int64 {
	if rel, ok := m.Interface().(*pb.Relation); ok && rel.GetCommon() != nil && rel.GetCommon().PlanId != nil {
		out = append(out, rel.GetCommon().GetPlanId())
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.MessageKind:
			for i := 0; i < v.List().Len(); i++ {
				out = planIDs(v.List().Get(i).Message(), out)
			}
		case fd.IsMap():
		case fd.Kind() == protoreflect.MessageKind:
			out = planIDs(v.Message(), out)
		}
		return true
	})
	return out
}
