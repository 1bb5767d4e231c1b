// Package sparkpb is the Go code protoc generates from Apache Spark's Spark
// Connect protocol (package spark.connect), kept in atlas/connect/proto.
// Regenerate with `make proto`; never edit the .pb.go files by hand. The
// gRPC service code lives in sparkgrpc, so this package does not import
// grpc-go (the Atlas Connect client in notebook cells links only this one).
//
// The package registers the spark.connect.* files in the global protobuf
// registry, as the official client github.com/apache/spark-connect-go does
// too: the two cannot be linked into one binary.
package sparkpb
