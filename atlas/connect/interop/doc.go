// Package interop tests Atlas Connect with the official Apache Spark Connect
// Go client (github.com/apache/spark-connect-go) as an independent client.
//
// The tests import only that client: it registers its own generated
// spark.connect.* protobuf files, which would clash with Atlas's at init
// if both were linked into one binary. So the Atlas server runs in another
// process, the atlas command built by the test (`atlas serve`).
package interop
