package planner

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/table"
)

// showString runs df.show(n, truncate, vertical) on the server, as Spark
// does: the result is one row with one string column, show_string,
// holding the rendered table (table.ShowString, Spark 4.0's
// Dataset.showString).
func (p *Planner) showString(ctx context.Context, s *pb.ShowString) (*engine.DataFrame, error) {
	in, err := p.Relation(ctx, s.GetInput())
	if err != nil {
		return nil, err
	}
	n := max(int(s.GetNumRows()), 0)
	schema, recs, err := in.Limit(n + 1).Collect(ctx)
	if err != nil {
		return nil, err
	}
	defer release(recs)
	text := table.ShowString(schema, recs, n, int(s.GetTruncate()), s.GetVertical())
	return p.strings("show_string", []string{text})
}

// strings is a one-column string DataFrame.
func (p *Planner) strings(column string, values []string) (*engine.DataFrame, error) {
	schema := arrow.NewSchema([]arrow.Field{{Name: column, Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues(values, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	return p.Session.CreateDataFrame(schema, []arrow.RecordBatch{rec}), nil
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
