package planner

import (
	"context"
	"fmt"
	"math/rand/v2"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// moreRelation plans the relations the official clients send beyond the
// core ones: toDF, range, tail, offset, sample, repartition, na.*, stat.*
// and the catalog. ok is false when rel is none of them.
func (p *Planner) moreRelation(ctx context.Context, rel *pb.Relation) (df *engine.DataFrame, ok bool, err error) {
	switch r := rel.GetRelType().(type) {
	case *pb.Relation_ToDf:
		df, err = p.withInput(ctx, r.ToDf.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.ToDF(r.ToDf.GetColumnNames()...)
		})
	case *pb.Relation_Range:
		step := r.Range.GetStep()
		if step == 0 {
			step = 1
		}
		df = p.Session.Range(r.Range.GetStart(), r.Range.GetEnd(), step)
	case *pb.Relation_Tail:
		df, err = p.withInput(ctx, r.Tail.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.Tail(ctx, int(r.Tail.GetLimit()))
		})
	case *pb.Relation_Offset:
		df, err = p.withInput(ctx, r.Offset.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.Offset(ctx, int(r.Offset.GetOffset()))
		})
	case *pb.Relation_Sample:
		s := r.Sample
		seed := s.GetSeed()
		if s.Seed == nil {
			seed = rand.Int64() // as Spark: a sample without a seed differs each time
		}
		df, err = p.withInput(ctx, s.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.Sample(ctx, s.GetLowerBound(), s.GetUpperBound(), s.GetWithReplacement(), seed)
		})
	case *pb.Relation_Repartition:
		df, err = p.withInput(ctx, r.Repartition.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.Repartition(int(r.Repartition.GetNumPartitions()))
		})
	case *pb.Relation_RepartitionByExpression:
		if _, err = columns(r.RepartitionByExpression.GetPartitionExprs()); err != nil {
			return nil, true, fmt.Errorf("repartition: %w", err)
		}
		df, err = p.withInput(ctx, r.RepartitionByExpression.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.Repartition(int(r.RepartitionByExpression.GetNumPartitions()))
		})
	case *pb.Relation_DropNa:
		d := r.DropNa
		min := -1
		if d.MinNonNulls != nil {
			min = int(d.GetMinNonNulls())
		}
		df, err = p.withInput(ctx, d.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.Na().Drop(min, d.GetCols()...)
		})
	case *pb.Relation_FillNa:
		df, err = p.fillNA(ctx, r.FillNa)
	case *pb.Relation_Replace:
		df, err = p.replaceNA(ctx, r.Replace)
	default:
		return p.statRelation(ctx, rel)
	}
	return df, true, err
}

// withInput plans input and applies f to it.
func (p *Planner) withInput(ctx context.Context, input *pb.Relation, f func(*engine.DataFrame) *engine.DataFrame) (*engine.DataFrame, error) {
	in, err := p.Relation(ctx, input)
	if err != nil {
		return nil, err
	}
	return f(in), nil
}

func (p *Planner) fillNA(ctx context.Context, f *pb.NAFill) (*engine.DataFrame, error) {
	values := make([]any, len(f.GetValues()))
	for i, l := range f.GetValues() {
		v, err := literalValue(l)
		if err != nil {
			return nil, fmt.Errorf("na.fill: %w", err)
		}
		values[i] = v
	}
	return p.withInput(ctx, f.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
		return in.Na().Fill(values, f.GetCols()...)
	})
}

func (p *Planner) replaceNA(ctx context.Context, r *pb.NAReplace) (*engine.DataFrame, error) {
	repl := make([]engine.Replacement, len(r.GetReplacements()))
	for i, x := range r.GetReplacements() {
		old, err := literalValue(x.GetOldValue())
		if err != nil {
			return nil, fmt.Errorf("na.replace: %w", err)
		}
		nv, err := literalValue(x.GetNewValue())
		if err != nil {
			return nil, fmt.Errorf("na.replace: %w", err)
		}
		repl[i] = engine.Replacement{Old: old, New: nv}
	}
	return p.withInput(ctx, r.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
		return in.Na().Replace(repl, r.GetCols()...)
	})
}
