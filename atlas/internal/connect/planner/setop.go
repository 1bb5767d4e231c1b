package planner

import (
	"context"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// setOperation is df.union(other) / unionAll: a SetOperation of type UNION
// with is_all, by position. unionByName, UNION DISTINCT, INTERSECT and
// EXCEPT are refused by name.
func (p *Planner) setOperation(ctx context.Context, s *pb.SetOperation) (*engine.DataFrame, error) {
	if s.GetSetOpType() != pb.SetOperation_SET_OP_TYPE_UNION {
		return nil, unsupported("set operation "+s.GetSetOpType().String(), "union (UNION ALL) is supported")
	}
	if s.GetByName() {
		return nil, unsupported("unionByName", "select the columns in the same order and use union")
	}
	left, err := p.Relation(ctx, s.GetLeftInput())
	if err != nil {
		return nil, err
	}
	right, err := p.Relation(ctx, s.GetRightInput())
	if err != nil {
		return nil, err
	}
	out := left.Union(right)
	if !s.GetIsAll() {
		out = out.Distinct()
	}
	return out, nil
}
