package atlas

import (
	"context"
	"errors"
	"fmt"

	atlaspb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaslite"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// sqlBatch is a server-side foreachBatch: a view name and SQL statements.
type sqlBatch struct {
	view       string
	statements []string
}

// ForeachBatchSQL is foreachBatch with a body of SQL that runs on the
// server: for every micro-batch the server publishes the batch as the temp
// view view and runs statements in order, as a Go function would with
// batch.CreateOrReplaceTempView(view) and spark.SQL(statement):
//
//	q, err := changes.WriteStream().QueryName("cdc_merge").
//		ForeachBatchSQL("updates", `MERGE INTO lakehouse.silver.customers t
//		    USING updates u ON t.id = u.id
//		    WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`).
//		Start()
//
// Nothing runs in this process, so the query outlives the cell (and the
// kernel) that started it, and it resumes after a server restart from its
// checkpoint, as a ToTable query does. Its writes are exactly-once as a Go
// foreachBatch's are: keyed by (query id, batch id, write sequence). It
// needs QueryName or the checkpointLocation option. Statements that do
// not parse are refused at Start; one that fails on a batch stops the
// query with its error (Exception) and the batch is replayed on the next
// start. An Atlas extension (atlas.connect.SqlForeachBatchStart): Apache
// Spark refuses it.
func (w *DataStreamWriter) ForeachBatchSQL(view string, statements ...string) *DataStreamWriter {
	w.sqlBatch = &sqlBatch{view: view, statements: append([]string(nil), statements...)}
	return w
}

// startForeachBatchSQL starts op with the server-side foreachBatch.
func (w *DataStreamWriter) startForeachBatchSQL(op *pb.WriteStreamOperationStart) (*StreamingQuery, error) {
	s := w.df.s
	start := &atlaspb.SqlForeachBatchStart{WriteStream: op, ViewName: w.sqlBatch.view, Statements: w.sqlBatch.statements}
	b, err := start.MarshalVT()
	ext, err := packExtension(atlaspb.TypeURLSqlForeachBatchStart, b, err)
	if err != nil {
		return nil, fmt.Errorf("start the query: %w", err)
	}
	resps, err := s.command(context.Background(), &pb.Command{CommandType: &pb.Command_Extension{Extension: ext}})
	if err != nil {
		return nil, fmt.Errorf("start the query: %w", err)
	}
	for _, r := range resps {
		if res := r.GetWriteStreamOperationStartResult(); res != nil {
			q := s.query(res.GetQueryId(), res.GetName())
			q.progress = w.progress
			q.checkpoint = op.GetOptions()["checkpointLocation"]
			s.postStarted(q)
			return q, nil
		}
	}
	return nil, errors.New("start the query: the server answered without the query's id")
}
