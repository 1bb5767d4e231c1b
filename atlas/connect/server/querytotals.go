package server

import (
	"fmt"

	"google.golang.org/protobuf/types/known/anypb"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// queryTotals answers atlas.connect.QueryTotals: counters over every batch
// of the query's run, which recentProgress (the last 100) cannot give.
func (s *service) queryTotals(sess *session, out *responder, c *atlaspb.QueryTotals) error {
	q, err := sess.query(c.GetQueryId().GetId(), c.GetQueryId().GetRunId())
	if err != nil {
		return err
	}
	t := q.sq.Totals()
	ext, err := anypb.New(&atlaspb.QueryTotalsResult{
		Batches: t.Batches, InputRows: t.InputRows, OutputRows: t.OutputRows,
		DroppedLate: t.DroppedLate, Malformed: t.Malformed,
	})
	if err != nil {
		return fmt.Errorf("totals of query %s: %w", q.sq.ID(), err)
	}
	return out.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_Extension{Extension: ext}})
}
