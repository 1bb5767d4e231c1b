// Package atlaslite is the Go code protoc-gen-go-lite generates from Atlas's
// extensions to the Spark Connect protocol (package atlas.connect), for the
// Atlas Connect client, as sparklite is for spark.connect; the server uses
// atlaspb. Regenerate with `make proto`; never edit the .pb.go files by hand.
package atlaslite

// The type URLs of the messages the client packs into a
// google.protobuf.Any: the prefix and full message names google's
// anypb.New writes, which the server's anypb.UnmarshalTo checks. (The
// generated code carries no descriptors, so the names are spelled here;
// atlas/wire_test.go checks them against atlaspb's.)
const (
	// TypeURLLatestPerKey is the type URL of LatestPerKey.
	TypeURLLatestPerKey = "type.googleapis.com/atlas.connect.LatestPerKey"
	// TypeURLForeachBatchStart is the type URL of ForeachBatchStart.
	TypeURLForeachBatchStart = "type.googleapis.com/atlas.connect.ForeachBatchStart"
	// TypeURLForeachBatchReady is the type URL of ForeachBatchReady.
	TypeURLForeachBatchReady = "type.googleapis.com/atlas.connect.ForeachBatchReady"
	// TypeURLForeachBatchDone is the type URL of ForeachBatchDone.
	TypeURLForeachBatchDone = "type.googleapis.com/atlas.connect.ForeachBatchDone"
	// TypeURLProgressCharts is the type URL of ProgressCharts.
	TypeURLProgressCharts = "type.googleapis.com/atlas.connect.ProgressCharts"
	// TypeURLProgressChartsResult is the type URL of ProgressChartsResult.
	TypeURLProgressChartsResult = "type.googleapis.com/atlas.connect.ProgressChartsResult"
	// TypeURLQueryTotals is the type URL of QueryTotals.
	TypeURLQueryTotals = "type.googleapis.com/atlas.connect.QueryTotals"
	// TypeURLQueryTotalsResult is the type URL of QueryTotalsResult.
	TypeURLQueryTotalsResult = "type.googleapis.com/atlas.connect.QueryTotalsResult"
	// TypeURLConsoleOutput is the type URL of ConsoleOutput.
	TypeURLConsoleOutput = "type.googleapis.com/atlas.connect.ConsoleOutput"
	// TypeURLConsoleOutputResult is the type URL of ConsoleOutputResult.
	TypeURLConsoleOutputResult = "type.googleapis.com/atlas.connect.ConsoleOutputResult"
	// TypeURLSqlForeachBatchStart is the type URL of SqlForeachBatchStart.
	TypeURLSqlForeachBatchStart = "type.googleapis.com/atlas.connect.SqlForeachBatchStart"
)
