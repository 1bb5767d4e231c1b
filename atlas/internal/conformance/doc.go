// Package conformance measures Atlas's SQL against Apache Spark's own
// results: the examples of Spark's built-in function documentation, each
// with the rows and schema Spark returned (the spark-gold corpus, see its
// README for provenance and licence). The test in this package runs every
// example through an in-process Atlas server over Spark Connect, renders
// the result the way spark-sql prints it (Spark's Hive-style result
// format) and compares rows, column names and column types.
//
// The corpus is found through $ATLAS_SPARK_GOLD, else at ../shared/spark-gold
// beside the repository. Without it the test skips, except under CI=true,
// where a missing corpus is a failure. The test fails when the share of
// deterministic examples that match falls below the floor in
// testdata/floor.txt; raise the floor whenever the rate goes up.
//
//	make conformance
//	ATLAS_CONFORMANCE_REPORT=/tmp/report.txt go test -run TestSparkFunctionExamples ./atlas/internal/conformance
//	ATLAS_CONFORMANCE_ONLY='regexp_|like' go test -v -run TestSparkFunctionExamples ./atlas/internal/conformance
//
// ATLAS_CONFORMANCE_ONLY runs only the examples whose query the regular
// expression matches, logs each outcome and skips the floor check.
package conformance
