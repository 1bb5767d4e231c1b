// Package sparklite is the Go code protoc-gen-go-lite
// (github.com/aperturerobotics/protobuf-go-lite) generates from the same
// Spark Connect protocol files as sparkpb (atlas/connect/proto/spark/connect),
// for the Atlas Connect client only: plain structs with static MarshalVT,
// UnmarshalVT and SizeVT methods and no protobuf reflection, so a notebook
// cell that imports the client links neither google.golang.org/protobuf nor
// the descriptors of some 500 messages. The server keeps sparkpb (grpc-go
// needs google.golang.org/protobuf messages). Both packages encode a message
// to the same bytes: atlas/wire_test.go checks every request the client's
// tests send against sparkpb. Regenerate with `make proto`; never edit the
// .pb.go files by hand.
package sparklite
