// Package engine is Atlas's in-process Structured Streaming engine: the
// Session, DataFrame and logical plans, the glue of SQL and MERGE
// (packages sqlexec and merge run the statements), the sinks, the
// streaming query manager and the write log. The Atlas
// Connect server (atlas/connect/server, through atlas/internal/connect/planner)
// runs every client plan on it; user code does not import it: notebooks and
// Go programs use the Connect client, package atlas. In-process programs
// (the CLI, tests) import it under its own name:
//
//	spark := engine.Builder().AppName("events").GetOrCreate()
//	raw := spark.ReadStream().Format("kafka").
//		Option("kafka.bootstrap.servers", "127.0.0.1:9092").
//		Option("subscribe", "events").Load()
//	events := raw.Select(engine.FromJSON(engine.Col("value").Cast("string"), "user_id string, event string, ts timestamp").Alias("data")).
//		Select("data.*")
//	counts := events.WithWatermark("ts", "10 minutes").
//		GroupBy(engine.Window(engine.Col("ts"), "5 minutes"), engine.Col("event")).Count()
//	q, err := counts.WriteStream().OutputMode("append").Format("iceberg").
//		Option("checkpointLocation", dir).ToTable("lakehouse.gold.event_windows")
//
// DataFrame methods build a logical plan and never fail on their own: an
// error (an unknown column, a bad duration) is kept in the DataFrame and
// returned by the first method that runs something (Start, Show, Collect),
// and by Err. Where Spark has a trap, Atlas keeps the surface and removes
// the trap: late rows are counted and reported rather than silently
// dropped, and kept in a table of their own with the writer option
// "lateRowsTable"; MERGE can reduce a micro-batch to the latest change per
// key (DataFrame.LatestPerKey); foreachBatch writes through the session and
// the Iceberg sink are exactly-once across restarts and crashes; a second
// run of a running query's checkpoint fails at Start instead of racing.
//
// A program linking the engine (the atlas CLI and server) that should reach
// other Iceberg catalogs or object stores by configuration alone imports
// atlas/drivers (or builds with -tags=atlas_drivers); the embedded default
// needs nothing.
package engine
