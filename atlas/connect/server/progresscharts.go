package server

import (
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
)

// progressCharts answers atlas.connect.ProgressCharts: the query's recent
// progress with its charts, rendered here (the notebook live view of a
// client that links no chart library).
func (s *service) progressCharts(sess *session, out *responder, c *atlaspb.ProgressCharts) error {
	q, err := sess.query(c.GetQueryId().GetId(), c.GetQueryId().GetRunId())
	if err != nil {
		return err
	}
	res, err := planner.ProgressCharts(q.sq)
	if err != nil {
		return err
	}
	return out.sendExtension(res)
}
