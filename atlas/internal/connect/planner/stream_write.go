package planner

import (
	"context"
	"encoding/json"
	"fmt"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// StartStream starts df.writeStream as WriteStreamOperationStart describes
// it: format, options, output mode, trigger, query name, and a path or a
// table as the destination. Invalid queries fail here, before any side
// effect. The live progress display is off: the server has no notebook.
func (p *Planner) StartStream(ctx context.Context, w *pb.WriteStreamOperationStart) (*engine.StreamingQuery, string, error) {
	switch {
	case w.GetForeachBatch() != nil:
		return nil, "", unsupported("foreachBatch with a Python or Scala function", "write to a table, memory or console sink")
	case w.GetForeachWriter() != nil:
		return nil, "", unsupported("foreach with a Python or Scala ForeachWriter (its code cannot run in Atlas's Go server)", `write with format("kafka"), a file sink (format("parquet"/"json"/"csv") with a path), a table, memory or console; from Go, the atlas client's Foreach(writer) runs the writer on the client`)
	case len(w.GetPartitioningColumnNames()) > 0:
		return nil, "", unsupported("writeStream.partitionBy", "create the table partitioned (CREATE TABLE ... PARTITIONED BY) first")
	case len(w.GetClusteringColumnNames()) > 0:
		return nil, "", unsupported("writeStream.clusterBy", "")
	}
	var trigger *engine.Trigger
	switch t := w.GetTrigger().(type) {
	case *pb.WriteStreamOperationStart_ProcessingTimeInterval:
		tr := engine.ProcessingTime(t.ProcessingTimeInterval)
		trigger = &tr
	case *pb.WriteStreamOperationStart_AvailableNow:
		tr := engine.AvailableNow()
		trigger = &tr
	case *pb.WriteStreamOperationStart_Once:
		tr := engine.Once()
		trigger = &tr
	case *pb.WriteStreamOperationStart_ContinuousCheckpointInterval:
		return nil, "", unsupported("continuous triggers", "use a processing-time trigger")
	}
	df, err := p.Relation(ctx, w.GetInput())
	if err != nil {
		return nil, "", err
	}
	if !df.IsStreaming() {
		return nil, "", fmt.Errorf("writeStream needs a streaming DataFrame (spark.readStream...); write batch DataFrames with SQL INSERT INTO")
	}
	wr := df.WriteStream().Progress(false).Format(w.GetFormat())
	if m := w.GetOutputMode(); m != "" {
		wr = wr.OutputMode(m)
	}
	for k, v := range w.GetOptions() {
		wr = wr.Option(k, v)
	}
	if n := w.GetQueryName(); n != "" {
		wr = wr.QueryName(n)
	}
	if trigger != nil {
		wr = wr.Trigger(*trigger)
	}
	var sq *engine.StreamingQuery
	switch d := w.GetSinkDestination().(type) {
	case *pb.WriteStreamOperationStart_TableName:
		sq, err = wr.ToTable(d.TableName)
	case *pb.WriteStreamOperationStart_Path:
		sq, err = wr.Option("path", d.Path).Start()
	default:
		sq, err = wr.Start()
	}
	if err != nil {
		return nil, "", err
	}
	return sq, df.ExplainString(), nil
}

// QueryStatus is query.status in Spark's shape.
func QueryStatus(sq *engine.StreamingQuery) *pb.StreamingQueryCommandResult_StatusResult {
	st := sq.Status()
	return &pb.StreamingQueryCommandResult_StatusResult{
		StatusMessage:   st.Message,
		IsDataAvailable: st.IsDataAvailable,
		IsTriggerActive: st.IsTriggerActive,
		IsActive:        sq.IsActive(),
	}
}

// QueryProgress is query.recentProgress (or, with last, lastProgress) as
// Spark's progress JSON documents, oldest first.
func QueryProgress(sq *engine.StreamingQuery, last bool) (*pb.StreamingQueryCommandResult_RecentProgressResult, error) {
	ps := sq.RecentProgress()
	if last && len(ps) > 0 {
		ps = ps[len(ps)-1:]
	}
	out := &pb.StreamingQueryCommandResult_RecentProgressResult{}
	for _, p := range ps {
		js, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encode progress of batch %d: %w", p.BatchID, err)
		}
		out.RecentProgressJson = append(out.RecentProgressJson, string(js))
	}
	return out, nil
}

// QueryException is query.exception(): empty while the query runs or when
// it ended cleanly.
func QueryException(sq *engine.StreamingQuery) *pb.StreamingQueryCommandResult_ExceptionResult {
	err := sq.Exception()
	if err == nil {
		return &pb.StreamingQueryCommandResult_ExceptionResult{}
	}
	msg, class := err.Error(), "STREAM_FAILED"
	return &pb.StreamingQueryCommandResult_ExceptionResult{ExceptionMessage: &msg, ErrorClass: &class}
}
