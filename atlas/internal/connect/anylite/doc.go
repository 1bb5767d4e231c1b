// Package anylite is the Go code protoc-gen-go-lite generates from
// google/protobuf/any.proto (Debian's protobuf-compiler ships it), the
// google.protobuf.Any of the Spark Connect extension fields in sparklite.
// It is generated here rather than taken from protobuf-go-lite's
// types/known/anypb, whose hand-written helpers link protobuf-go-lite's JSON
// runtime and its Duration, Struct and Timestamp types into every notebook
// cell. Regenerate with `make proto`; never edit the .pb.go file by hand.
package anylite
