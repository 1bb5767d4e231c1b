package planner

import (
	"github.com/atlas-lakehouse/atlas/atlas"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// readStream plans spark.readStream.format(...).options(...).load().
func (p *Planner) readStream(ds *pb.Read_DataSource) (*atlas.DataFrame, error) {
	if len(ds.GetPaths()) > 0 || len(ds.GetPredicates()) > 0 {
		return nil, unsupported("readStream with paths or predicates", "")
	}
	r := p.Session.ReadStream().Format(ds.GetFormat()).Options(ds.GetOptions())
	if s := ds.GetSchema(); s != "" {
		r = r.Schema(s)
	}
	return r.Load(), nil
}
