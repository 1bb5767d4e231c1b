package planner

import (
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// readStream plans spark.readStream.format(...).options(...).load([path]);
// a file stream's directory comes as the one path.
func (p *Planner) readStream(ds *pb.Read_DataSource) (*engine.DataFrame, error) {
	if len(ds.GetPredicates()) > 0 {
		return nil, unsupported("readStream with predicates", "")
	}
	if len(ds.GetPaths()) > 1 {
		return nil, unsupported("readStream of several paths", "watch one directory, or a glob such as \"in/*/\"")
	}
	r := p.Session.ReadStream().Format(ds.GetFormat()).Options(ds.GetOptions())
	if s := ds.GetSchema(); s != "" {
		ddl, err := schemaDDL(s)
		if err != nil {
			return nil, err
		}
		r = r.Schema(ddl)
	}
	return r.Load(ds.GetPaths()...), nil
}
