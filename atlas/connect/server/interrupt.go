package server

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/grpc/codes"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// Interrupt cancels running operations of the session: all, those with a
// tag, or one by id. Streaming queries are stopped with their own command.
func (s *service) Interrupt(ctx context.Context, req *pb.InterruptRequest) (*pb.InterruptResponse, error) {
	sess, err := s.session(ctx, req.GetUserContext(), req.GetSessionId(), req.ClientObservedServerSideSessionId)
	if err != nil {
		return nil, err
	}
	var match func(id string, op *operation) bool
	switch req.GetInterruptType() {
	case pb.InterruptRequest_INTERRUPT_TYPE_ALL:
		match = func(string, *operation) bool { return true }
	case pb.InterruptRequest_INTERRUPT_TYPE_TAG:
		tag := req.GetOperationTag()
		match = func(_ string, op *operation) bool { return slices.Contains(op.tags, tag) }
	case pb.InterruptRequest_INTERRUPT_TYPE_OPERATION_ID:
		id := req.GetOperationId()
		match = func(opID string, _ *operation) bool { return opID == id }
	default:
		return nil, invalidArgument(fmt.Errorf("interrupt: interrupt_type is required"))
	}
	return &pb.InterruptResponse{
		SessionId:           sess.key.id,
		ServerSideSessionId: sess.serverSideID,
		InterruptedIds:      sess.interrupt(match),
	}, nil
}

// ReleaseExecute acknowledges the release of an operation's results:
// Atlas keeps no results after an ExecutePlan stream ends.
func (s *service) ReleaseExecute(ctx context.Context, req *pb.ReleaseExecuteRequest) (*pb.ReleaseExecuteResponse, error) {
	sess, err := s.session(ctx, req.GetUserContext(), req.GetSessionId(), req.ClientObservedServerSideSessionId)
	if err != nil {
		return nil, err
	}
	id := req.GetOperationId()
	return &pb.ReleaseExecuteResponse{SessionId: sess.key.id, ServerSideSessionId: sess.serverSideID, OperationId: &id}, nil
}

// ReattachExecute is refused: Atlas does not buffer results for
// reattachment, and every ExecutePlan stream ends with ResultComplete.
func (s *service) ReattachExecute(req *pb.ReattachExecuteRequest, _ pb.SparkConnectService_ReattachExecuteServer) error {
	return withInfo(codes.NotFound, "INVALID_HANDLE.OPERATION_NOT_FOUND", "HY000", classSpark,
		fmt.Sprintf("[INVALID_HANDLE.OPERATION_NOT_FOUND] operation %s: Atlas Connect does not keep results for reattachment; run the plan again", req.GetOperationId()))
}

// ReleaseSession closes the session: its operations are interrupted, its
// temp views and memory tables dropped and its streaming queries stopped.
func (s *service) ReleaseSession(ctx context.Context, req *pb.ReleaseSessionRequest) (*pb.ReleaseSessionResponse, error) {
	resp := &pb.ReleaseSessionResponse{SessionId: req.GetSessionId()}
	if sess, ok := s.sessions.remove(sessionKey{principal(ctx), req.GetUserContext().GetUserId(), req.GetSessionId()}); ok {
		resp.ServerSideSessionId = sess.serverSideID
		sess.close()
		for _, q := range sess.listQueries(false) {
			s.forget(q.sq) // the session ended: its queries are not resumed
		}
		s.logf("session %s released", sess.key.tag())
	}
	return resp, nil
}
