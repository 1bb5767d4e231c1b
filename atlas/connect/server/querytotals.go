package server

import (
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
)

// queryTotals answers atlas.connect.QueryTotals: counters over every batch
// of the query's run, which recentProgress (the last 100) cannot give.
func (s *service) queryTotals(sess *session, out *responder, c *atlaspb.QueryTotals) error {
	q, err := sess.query(c.GetQueryId().GetId(), c.GetQueryId().GetRunId())
	if err != nil {
		return err
	}
	t := q.sq.Totals()
	return out.sendExtension(&atlaspb.QueryTotalsResult{
		Batches: t.Batches, InputRows: t.InputRows, OutputRows: t.OutputRows,
		DroppedLate: t.DroppedLate, Malformed: t.Malformed,
	})
}
