package server

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the "proto" codec wrapped here
	"google.golang.org/grpc/mem"
)

// A request nesting past protobuf's decoder limit (10,000 messages) fails
// inside grpc, before any handler or interceptor runs, and grpc writes the
// status itself: INTERNAL "failed to unmarshal the received message",
// with protobuf's own text. limitCodec is grpc's proto codec with that
// text replaced by one naming the server's plan limit, so the client
// learns what was refused and what to do.

// limitCodec wraps grpc's proto codec; only decode errors change.
type limitCodec struct {
	encoding.CodecV2
	recursionLimit int
}

// newLimitCodec wraps the registered proto codec.
func newLimitCodec(l limits) limitCodec {
	return limitCodec{CodecV2: encoding.GetCodecV2("proto"), recursionLimit: l.recursionLimit}
}

// Unmarshal decodes a request, naming the limit of a request nested too
// deeply.
func (c limitCodec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.CodecV2.Unmarshal(data, v)
	if err != nil && strings.Contains(err.Error(), "exceeded maximum recursion depth") {
		return fmt.Errorf("the request nests more messages deep than protobuf decodes (10,000), far past the server's plan limit %s (%d): build the plan flatter, or as SQL (%w)", ConfRecursionLimit, c.recursionLimit, err)
	}
	return err
}
