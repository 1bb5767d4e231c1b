// Package atlaspb is the Go code protoc generates from Atlas's extensions
// to the Spark Connect protocol (package atlas.connect, kept in
// atlas/connect/proto/atlas/connect): the operations Apache Spark has no
// message for, carried in the protocol's google.protobuf.Any extension
// fields. Regenerate with `make proto`; never edit the .pb.go files by hand.
package atlaspb
