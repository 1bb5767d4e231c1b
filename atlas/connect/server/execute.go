package server

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// ExecutePlan runs a relation (streaming its rows back as Arrow batches) or
// a command, then sends ResultComplete.
func (s *service) ExecutePlan(req *pb.ExecutePlanRequest, stream pb.SparkConnectService_ExecutePlanServer) error {
	if err := s.limits.checkPlan(req.GetPlan().ProtoReflect()); err != nil {
		return err
	}
	sess, err := s.session(stream.Context(), req.GetUserContext(), req.GetSessionId(), req.ClientObservedServerSideSessionId)
	if err != nil {
		return err
	}
	opID := req.GetOperationId()
	if opID == "" {
		opID = uuid.NewString()
	}
	ctx, done, err := sess.startOp(stream.Context(), opID, req.GetTags())
	if err != nil {
		return invalidArgument(err)
	}
	defer done()
	out := &responder{stream: stream, sess: sess, opID: opID}
	switch op := req.GetPlan().GetOpType().(type) {
	case *pb.Plan_Root:
		err = s.executeRelation(ctx, sess, out, op.Root)
	case *pb.Plan_Command:
		err = s.executeCommand(ctx, sess, out, op.Command)
	default:
		err = invalidArgument(fmt.Errorf("the plan has neither a root relation nor a command"))
	}
	if err != nil {
		return sess.withErrorID(toStatus(err))
	}
	return out.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_ResultComplete_{ResultComplete: &pb.ExecutePlanResponse_ResultComplete{}}})
}

// executeRelation collects a batch relation and sends its rows.
func (s *service) executeRelation(ctx context.Context, sess *session, out *responder, rel *pb.Relation) error {
	df, err := sess.planner.Relation(ctx, rel)
	if err != nil {
		return err
	}
	if df.IsStreaming() {
		return planner.ErrStreamingSource
	}
	schema, recs, err := df.Collect(ctx)
	if err != nil {
		return err
	}
	defer release(recs)
	if err := s.limits.checkResult(recs); err != nil {
		return err
	}
	return out.records(schema, recs)
}

// responder sends the responses of one operation, stamped with its ids.
type responder struct {
	stream pb.SparkConnectService_ExecutePlanServer
	sess   *session
	opID   string
}

func (r *responder) send(resp *pb.ExecutePlanResponse) error {
	resp.SessionId = r.sess.key.id
	resp.ServerSideSessionId = r.sess.serverSideID
	resp.OperationId = r.opID
	resp.ResponseId = uuid.NewString()
	return r.stream.Send(resp)
}

// sendExtension sends m, an Atlas message, as the extension of one
// response.
func (r *responder) sendExtension(m proto.Message) error {
	ext, err := anypb.New(m)
	if err != nil {
		return fmt.Errorf("packing %s: %w", m.ProtoReflect().Descriptor().FullName(), err)
	}
	return r.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_Extension{Extension: ext}})
}
