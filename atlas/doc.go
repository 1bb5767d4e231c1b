// Package atlas is the Atlas Connect client: the Structured Streaming API
// that notebook cells and Go programs import (Session, DataFrame, Column,
// DataStreamReader, DataStreamWriter, StreamingQuery), speaking Apache
// Spark's Spark Connect protocol to an Atlas server (`atlas up` starts one
// on 127.0.0.1:15002) or to any Spark Connect endpoint.
//
// DataFrame and Column build unresolved spark.connect.Relation and
// spark.connect.Expression messages with Spark's own function names, the
// way PySpark's Connect client does; nothing runs until an action (Rows,
// Collect, Count, Show, WriteStream().Start) sends the plan. Results come
// back as Arrow IPC batches. The server owns temp views, memory-sink tables
// and streaming queries, so a query started in one notebook cell keeps
// running after the cell's process exits and a later cell finds it again
// with Session.Streams().Get(name).
//
// Atlas-only operations travel in the protocol's extension fields, as
// messages of package atlas.connect (atlas/connect/proto/atlas/connect):
// DataFrame.LatestPerKey (Relation.extension) and a foreachBatch whose Go
// function runs in this process (Command.extension ForeachBatchStart and
// ForeachBatchDone, ExecutePlanResponse.extension ForeachBatchReady).
//
// The package links protobuf, Arrow's IPC reader, net/http (it speaks
// gRPC over HTTP/2 itself: see transport.go) and the live-chart renderer
// only: no engine (that is atlas/internal/engine, which the server runs),
// no Iceberg, no Kafka client, no SQLite, no grpc-go. A cell importing it
// builds into a binary of about 12.5 MB (kernel/cellbuild-bench.sh
// measures it).
//
// Sessions: NewSession connects to $ATLAS_CONNECT_ADDR (or $SPARK_REMOTE,
// else sc://127.0.0.1:15002). The session id is $ATLAS_SESSION_ID, or in a
// GoNB notebook one derived from the kernel, so every cell of a notebook
// shares the server session (its temp views, memory tables and queries);
// Remote("sc://host:port/;session_id=<uuid>") names one explicitly. Close
// ends this process's connection only; Stop ends the server session too
// (Spark's spark.stop()), stopping its queries.
package atlas
