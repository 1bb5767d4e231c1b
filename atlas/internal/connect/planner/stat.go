package planner

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// statRelation plans df.stat.* and df.describe/summary; ok is false for
// any other relation. Corr and cov answer one row of one double column
// (corr, cov), approxQuantile one row of approx_quantile
// (array<array<double>>), as Spark Connect's server does.
func (p *Planner) statRelation(ctx context.Context, rel *pb.Relation) (*engine.DataFrame, bool, error) {
	var df *engine.DataFrame
	var err error
	switch r := rel.GetRelType().(type) {
	case *pb.Relation_Describe:
		df, err = p.withInput(ctx, r.Describe.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.Describe(ctx, r.Describe.GetCols()...)
		})
	case *pb.Relation_Summary:
		df, err = p.withInput(ctx, r.Summary.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.Summary(ctx, r.Summary.GetStatistics()...)
		})
	case *pb.Relation_Crosstab:
		df, err = p.withInput(ctx, r.Crosstab.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.Stat().Crosstab(ctx, r.Crosstab.GetCol1(), r.Crosstab.GetCol2())
		})
	case *pb.Relation_FreqItems:
		support := 0.01
		if r.FreqItems.Support != nil {
			support = r.FreqItems.GetSupport()
		}
		df, err = p.withInput(ctx, r.FreqItems.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
			return in.Stat().FreqItems(ctx, support, r.FreqItems.GetCols()...)
		})
	case *pb.Relation_Corr:
		df, err = p.scalar(ctx, r.Corr.GetInput(), "corr", func(st *engine.DataFrameStatFunctions) (float64, error) {
			return st.Corr(ctx, r.Corr.GetCol1(), r.Corr.GetCol2(), r.Corr.GetMethod())
		})
	case *pb.Relation_Cov:
		df, err = p.scalar(ctx, r.Cov.GetInput(), "cov", func(st *engine.DataFrameStatFunctions) (float64, error) {
			return st.Cov(ctx, r.Cov.GetCol1(), r.Cov.GetCol2())
		})
	case *pb.Relation_ApproxQuantile:
		df, err = p.approxQuantile(ctx, r.ApproxQuantile)
	case *pb.Relation_SampleBy:
		df, err = p.sampleBy(ctx, r.SampleBy)
	case *pb.Relation_Catalog:
		df, err = p.catalog(ctx, r.Catalog)
	default:
		return nil, false, nil
	}
	return df, true, err
}

// scalar runs f over the input's statistics and answers one row of one
// double column named name.
func (p *Planner) scalar(ctx context.Context, input *pb.Relation, name string, f func(*engine.DataFrameStatFunctions) (float64, error)) (*engine.DataFrame, error) {
	in, err := p.Relation(ctx, input)
	if err != nil {
		return nil, err
	}
	v, err := f(in.Stat())
	if err != nil {
		return nil, err
	}
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Append(v)
	return p.oneColumn(name, b.NewArray()), nil
}

// oneColumn is a DataFrame of one column (col is released here).
func (p *Planner) oneColumn(name string, col arrow.Array) *engine.DataFrame {
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: col.DataType(), Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	return p.Session.CreateDataFrame(schema, []arrow.RecordBatch{rec})
}

func (p *Planner) approxQuantile(ctx context.Context, q *pb.StatApproxQuantile) (*engine.DataFrame, error) {
	in, err := p.Relation(ctx, q.GetInput())
	if err != nil {
		return nil, err
	}
	qs, err := in.Stat().ApproxQuantile(ctx, q.GetCols(), q.GetProbabilities(), q.GetRelativeError())
	if err != nil {
		return nil, err
	}
	b := array.NewListBuilder(memory.DefaultAllocator, arrow.ListOf(arrow.PrimitiveTypes.Float64))
	defer b.Release()
	b.Append(true)
	inner := b.ValueBuilder().(*array.ListBuilder)
	for _, col := range qs {
		inner.Append(true)
		inner.ValueBuilder().(*array.Float64Builder).AppendValues(col, nil)
	}
	return p.oneColumn("approx_quantile", b.NewArray()), nil
}

func (p *Planner) sampleBy(ctx context.Context, s *pb.StatSampleBy) (*engine.DataFrame, error) {
	attr := s.GetCol().GetUnresolvedAttribute()
	if attr == nil {
		return nil, unsupported("sampleBy over an expression", "sample by a column name")
	}
	fractions := map[any]float64{}
	for _, f := range s.GetFractions() {
		v, err := literalValue(f.GetStratum())
		if err != nil {
			return nil, fmt.Errorf("sampleBy: %w", err)
		}
		fractions[v] = f.GetFraction()
	}
	seed := s.GetSeed()
	if s.Seed == nil {
		seed = rand.Int64()
	}
	return p.withInput(ctx, s.GetInput(), func(in *engine.DataFrame) *engine.DataFrame {
		return in.Stat().SampleBy(ctx, attr.GetUnparsedIdentifier(), fractions, seed)
	})
}
