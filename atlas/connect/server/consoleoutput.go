package server

import (
	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
)

// consoleOutput answers atlas.connect.ConsoleOutput: the batches a console
// sink query printed, from the bounded ring the engine keeps per query, so
// the notebook cell waiting on the query shows what Spark prints to the
// driver's stdout.
func (s *service) consoleOutput(sess *session, out *responder, c *atlaspb.ConsoleOutput) error {
	q, err := sess.query(c.GetQueryId().GetId(), c.GetQueryId().GetRunId())
	if err != nil {
		return err
	}
	printed, missed, ok := q.sq.ConsoleOutput(c.GetAfterBatchId(), int(c.GetLimit()))
	res := &atlaspb.ConsoleOutputResult{Missed: missed, Console: ok, RetainedBatches: int32(q.sq.ConsoleRetained())}
	for _, p := range printed {
		res.Batches = append(res.Batches, &atlaspb.ConsoleBatch{BatchId: p.BatchID, Text: p.Text})
	}
	return out.sendExtension(res)
}
