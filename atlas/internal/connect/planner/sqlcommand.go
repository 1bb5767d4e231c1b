package planner

import (
	"context"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// SQLCommand runs spark.sql(query) as Spark Connect's SqlCommand does: a
// query (SELECT) is planned now, so a wrong table or column fails at once,
// and comes back as a SQL relation to run later; any other statement (DDL,
// INSERT, MERGE, SHOW, DESCRIBE, CALL) runs now and comes back as a local
// relation holding its result rows.
func (p *Planner) SQLCommand(ctx context.Context, query string) (*pb.Relation, error) {
	stmt, err := p.Session.ParserOptions().Parse(query)
	if err != nil {
		return nil, err
	}
	df, err := p.Session.SQLContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if _, isQuery := stmt.(*parser.Select); isQuery {
		return &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: query}}}, nil
	}
	schema, recs, err := df.Collect(ctx)
	if err != nil {
		return nil, err
	}
	defer release(recs)
	data, err := WriteIPC(schema, recs)
	if err != nil {
		return nil, err
	}
	return &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data}}}, nil
}
