// Package sparkpb is the Go code protoc generates from Apache Spark's Spark
// Connect protocol (package spark.connect), kept in atlas/connect/proto.
// Regenerate with `make proto`; never edit the .pb.go files by hand. It
// holds the messages and the gRPC service code (base_grpc.pb.go) the server
// uses. The client in notebook cells links neither: it uses the
// reflection-free sparklite, generated from the same files.
//
// The package registers the spark.connect.* files in the global protobuf
// registry, as the official client github.com/apache/spark-connect-go does
// too: the two cannot be linked into one binary.
package sparkpb
