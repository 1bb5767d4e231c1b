package server

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// withSparkField sets field n of m to an empty message the way a Spark 4.0
// client sends a member Atlas's trimmed protos leave out: the bytes cross the
// wire and the server sees an unknown field.
func withSparkField[M proto.Message](m M, n protowire.Number) M {
	b := protowire.AppendTag(nil, n, protowire.BytesType)
	m.ProtoReflect().SetUnknown(protowire.AppendBytes(b, nil))
	return m
}

// TestLeftOutMessagesNamed: a command, a relation and an AnalyzePlan request
// Spark 4.0 has and Atlas's protos leave out are refused with
// codes.Unimplemented, naming Spark's field, message and number (from
// Spark's commands.proto, relations.proto and base.proto: Command.
// checkpoint_command = 14, Relation.unpivot = 25, AnalyzePlanRequest.
// same_semantics = 12).
func TestLeftOutMessagesNamed(t *testing.T) {
	home := t.TempDir()
	c := dial(t, startServer(t, home).Addr())
	check := func(what string, err error, want string) {
		t.Helper()
		st, _ := status.FromError(err)
		if st.Code() != codes.Unimplemented || !strings.Contains(st.Message(), want) {
			t.Errorf("%s: got %v %q, want Unimplemented containing %q", what, st.Code(), st.Message(), want)
		}
	}
	_, err := c.execute(&pb.Plan{OpType: &pb.Plan_Command{Command: withSparkField(&pb.Command{}, 14)}})
	check("command", err, "Atlas Connect does not support command checkpoint_command (CheckpointCommand, field 14)")
	_, err = c.tryRows(withSparkField(&pb.Relation{}, 25))
	check("relation", err, "Atlas Connect does not support relation unpivot (Unpivot, field 25)")
	_, err = c.rpc.AnalyzePlan(context.Background(), withSparkField(&pb.AnalyzePlanRequest{
		SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
	}, 12))
	check("analyze", err, "Atlas Connect does not support AnalyzePlan same_semantics (AnalyzePlanRequest.SameSemantics, field 12)")
}
