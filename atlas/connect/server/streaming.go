package server

import (
	"context"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// streamingCommand runs the commands of Structured Streaming.
func (s *service) streamingCommand(_ context.Context, _ *session, _ *responder, cmd *pb.Command) error {
	return &planner.UnsupportedError{What: "command " + commandName(cmd), Hint: "see the README's table of supported Spark Connect messages"}
}

func commandName(cmd *pb.Command) string {
	od := cmd.ProtoReflect().Descriptor().Oneofs().ByName("command_type")
	if fd := cmd.ProtoReflect().WhichOneof(od); fd != nil {
		return string(fd.Name())
	}
	return "(none)"
}
