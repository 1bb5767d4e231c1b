package planner

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/table"
)

// ErrStreamingSource refuses to collect or show a streaming DataFrame, with
// Spark's message (UnsupportedOperationChecker's "Queries with streaming
// sources must be executed with writeStream.start()").
var ErrStreamingSource = errors.New("queries with streaming sources must be executed with writeStream.start()")

// showString runs df.show(n, truncate, vertical) on the server, as Spark
// does: the result is one row with one string column, show_string,
// holding the rendered table (table.ShowString, Spark 4.0's
// Dataset.showString).
func (p *Planner) showString(ctx context.Context, s *pb.ShowString) (*engine.DataFrame, error) {
	n := max(int(s.GetNumRows()), 0)
	schema, recs, err := p.firstRows(ctx, s.GetInput(), n+1)
	if err != nil {
		return nil, err
	}
	defer release(recs)
	text := table.ShowStringIn(p.Session.Zone(), schema, recs, n, int(s.GetTruncate()), s.GetVertical())
	return p.strings("show_string", []string{text})
}

// htmlString renders df as a notebook shows it, as Spark's HtmlString
// relation (Dataset.htmlString): one row with one string column,
// html_string, holding table.HTMLString of the first num_rows rows. A
// client renders no tables itself: DataFrame.Show asks for this in a
// notebook and for ShowString in a terminal.
func (p *Planner) htmlString(ctx context.Context, s *pb.HtmlString) (*engine.DataFrame, error) {
	n := max(int(s.GetNumRows()), 0)
	schema, recs, err := p.firstRows(ctx, s.GetInput(), n+1)
	if err != nil {
		return nil, err
	}
	defer release(recs)
	return p.strings("html_string", []string{table.HTMLStringIn(p.Session.Zone(), schema, recs, n, int(s.GetTruncate()))})
}

// firstRows plans rel and collects its first n rows; a streaming relation
// is refused, as Spark refuses show() on one.
func (p *Planner) firstRows(ctx context.Context, rel *pb.Relation, n int) (*arrow.Schema, []arrow.RecordBatch, error) {
	in, err := p.Relation(ctx, rel)
	if err != nil {
		return nil, nil, err
	}
	if in.IsStreaming() {
		return nil, nil, ErrStreamingSource
	}
	return in.Limit(n).Collect(ctx)
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
