package planner

import (
	"context"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// setOperation is df.union/unionAll/unionByName (UNION, by position or by
// name), intersect/intersectAll (INTERSECT) and subtract/exceptAll
// (EXCEPT), with is_all telling ALL from DISTINCT.
func (p *Planner) setOperation(ctx context.Context, s *pb.SetOperation) (*engine.DataFrame, error) {
	left, err := p.Relation(ctx, s.GetLeftInput())
	if err != nil {
		return nil, err
	}
	right, err := p.Relation(ctx, s.GetRightInput())
	if err != nil {
		return nil, err
	}
	all := s.GetIsAll()
	switch s.GetSetOpType() {
	case pb.SetOperation_SET_OP_TYPE_UNION:
		out := left.Union(right)
		if s.GetByName() {
			out = left.UnionByName(right, s.GetAllowMissingColumns())
		}
		if !all {
			out = out.Distinct()
		}
		return out, nil
	case pb.SetOperation_SET_OP_TYPE_INTERSECT:
		if all {
			return left.IntersectAll(ctx, right), nil
		}
		return left.Intersect(ctx, right), nil
	case pb.SetOperation_SET_OP_TYPE_EXCEPT:
		if all {
			return left.ExceptAll(ctx, right), nil
		}
		return left.Subtract(ctx, right), nil
	}
	return nil, unsupported("set operation "+s.GetSetOpType().String(), "union, intersect and except are supported")
}
