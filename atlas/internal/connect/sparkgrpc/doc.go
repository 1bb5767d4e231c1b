// Package sparkgrpc is the gRPC service code of Spark Connect
// (spark.connect.SparkConnectService) that protoc-gen-go-grpc generates,
// moved out of the messages package sparkpb by `make proto`
// (atlas/connect/proto/grpcsplit) so that sparkpb does not import grpc-go:
// the server uses this package; the client in notebook cells speaks the
// same gRPC over net/http and links only sparkpb.
package sparkgrpc
