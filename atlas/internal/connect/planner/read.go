package planner

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// read plans spark.table(name) and spark.read...; streaming reads come
// through readStream.
func (p *Planner) read(ctx context.Context, r *pb.Read) (*atlas.DataFrame, error) {
	switch t := r.GetReadType().(type) {
	case *pb.Read_NamedTable_:
		if r.GetIsStreaming() {
			return nil, unsupported("readStream.table", "read a stream from Kafka: readStream.format(\"kafka\")")
		}
		if len(t.NamedTable.GetOptions()) > 0 {
			return nil, unsupported("options on spark.table", "")
		}
		return p.Session.Table(t.NamedTable.GetUnparsedIdentifier()), nil
	case *pb.Read_DataSource_:
		if r.GetIsStreaming() {
			return p.readStream(t.DataSource)
		}
		return nil, unsupported("batch spark.read of a data source", "read lakehouse tables with spark.table or SQL")
	}
	return nil, fmt.Errorf("read: neither a named table nor a data source")
}

// localRelation is a DataFrame the client sent as Arrow IPC stream bytes
// (spark.createDataFrame, and the results of eager SQL commands).
func (p *Planner) localRelation(l *pb.LocalRelation) (*atlas.DataFrame, error) {
	if len(l.GetData()) == 0 {
		return nil, unsupported("a local relation without data (schema only)", "")
	}
	schema, recs, err := ReadIPC(l.GetData())
	if err != nil {
		return nil, fmt.Errorf("local relation: %w", err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	return p.Session.CreateDataFrame(schema, recs), nil
}
