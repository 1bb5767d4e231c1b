package atlas

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// rpcTimeout bounds the short calls (analysis, configuration, commands
// that answer at once); actions that run plans use their caller's context.
const rpcTimeout = 2 * time.Minute

// ready reports a connection set-up error and, once, sends the builder's
// configuration to the server session.
func (s *Session) ready(ctx context.Context) error {
	if s.err != nil {
		return s.err
	}
	s.mu.Lock()
	if s.confSent || len(s.conf) == 0 {
		s.confSent = true
		s.mu.Unlock()
		return nil
	}
	pairs := make([]*pb.KeyValue, 0, len(s.conf))
	for k, v := range s.conf {
		pairs = append(pairs, &pb.KeyValue{Key: k, Value: ptr(v)})
	}
	s.mu.Unlock()
	// Sent until it succeeds once (a concurrent first call may send it too:
	// setting the same values twice is harmless).
	if _, err := s.config(ctx, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{Pairs: pairs}}}); err != nil {
		return fmt.Errorf("send the builder's configuration: %w", err)
	}
	s.mu.Lock()
	s.confSent = true
	s.mu.Unlock()
	return nil
}

// execute runs plan and hands every response to handle, in order, until
// the server completes the operation.
func (s *Session) execute(ctx context.Context, plan *pb.Plan, handle func(*pb.ExecutePlanResponse) error) error {
	return s.executeAs(ctx, plan, s.observed(), handle)
}

// executeAs is execute with the server-side session id the request says
// it observed (nil: none, for a call that must reach a restarted server).
func (s *Session) executeAs(ctx context.Context, plan *pb.Plan, observed *string, handle func(*pb.ExecutePlanResponse) error) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	stream, err := s.startExecute(ctx, plan, observed)
	if err != nil {
		return err
	}
	defer stream.close()
	for {
		resp := &pb.ExecutePlanResponse{}
		err := stream.recv(resp.UnmarshalVT)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return s.rpcError(err)
		}
		s.noteServerSide(resp.GetServerSideSessionId())
		if handle != nil {
			if err := handle(resp); err != nil {
				return err
			}
		}
	}
}

// startExecute sends plan in a new ExecutePlan operation and returns the
// response stream; errors are already the session's (rpcError). observed
// is the server-side session id the request says it saw (nil: none).
func (s *Session) startExecute(ctx context.Context, plan *pb.Plan, observed *string) (*callStream, error) {
	req := &pb.ExecutePlanRequest{
		SessionId:   s.id,
		UserContext: s.userContext(),
		OperationId: ptr(uuid.NewString()),
		Plan:        plan,
		ClientType:  ptr(s.agent),

		ClientObservedServerSideSessionId: observed,
	}
	body, err := req.MarshalVT()
	if err != nil {
		return nil, fmt.Errorf("encode the ExecutePlan request: %w", err)
	}
	stream, err := s.conn.call(ctx, "ExecutePlan", body)
	if err != nil {
		return nil, s.rpcError(err)
	}
	return stream, nil
}

// command runs a command plan and returns its responses.
func (s *Session) command(ctx context.Context, cmd *pb.Command) ([]*pb.ExecutePlanResponse, error) {
	return s.commandAs(ctx, cmd, s.observed())
}

// commandAs is command with the given observed server-side session id.
func (s *Session) commandAs(ctx context.Context, cmd *pb.Command, observed *string) ([]*pb.ExecutePlanResponse, error) {
	var out []*pb.ExecutePlanResponse
	err := s.executeAs(ctx, &pb.Plan{OpType: &pb.Plan_Command{Command: cmd}}, observed, func(r *pb.ExecutePlanResponse) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// analyze sends one AnalyzePlan request.
func (s *Session) analyze(ctx context.Context, req *pb.AnalyzePlanRequest) (*pb.AnalyzePlanResponse, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	req.SessionId = s.id
	req.UserContext = s.userContext()
	req.ClientType = ptr(s.agent)
	req.ClientObservedServerSideSessionId = s.observed()
	body, err := req.MarshalVT()
	if err != nil {
		return nil, fmt.Errorf("encode the AnalyzePlan request: %w", err)
	}
	resp := &pb.AnalyzePlanResponse{}
	if err := s.conn.unary(ctx, "AnalyzePlan", body, resp.UnmarshalVT); err != nil {
		return nil, s.rpcError(err)
	}
	s.noteServerSide(resp.GetServerSideSessionId())
	return resp, nil
}

// config sends one Config operation.
func (s *Session) config(ctx context.Context, op *pb.ConfigRequest_Operation) (*pb.ConfigResponse, error) {
	if s.err != nil {
		return nil, s.err
	}
	req := &pb.ConfigRequest{SessionId: s.id, UserContext: s.userContext(), Operation: op, ClientType: ptr(s.agent),
		ClientObservedServerSideSessionId: s.observed()}
	body, err := req.MarshalVT()
	if err != nil {
		return nil, fmt.Errorf("encode the Config request: %w", err)
	}
	resp := &pb.ConfigResponse{}
	if err := s.conn.unary(ctx, "Config", body, resp.UnmarshalVT); err != nil {
		return nil, s.rpcError(err)
	}
	s.noteServerSide(resp.GetServerSideSessionId())
	return resp, nil
}

// noteServerSide remembers the server-side session id the server first
// answered with. Every later request carries it
// (client_observed_server_side_session_id), so after a server restart the
// new server answers INVALID_HANDLE.SESSION_CHANGED (ErrSessionChanged),
// as Spark 3.5+ does, rather than letting the session go on as if its
// temp views and memory tables were still there.
func (s *Session) noteServerSide(id string) {
	if id == "" {
		return
	}
	s.mu.Lock()
	if s.serverSideID == "" {
		s.serverSideID = id
	}
	s.mu.Unlock()
}

// observed is the server-side session id to send (nil before the first
// answer).
func (s *Session) observed() *string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.serverSideID == "" {
		return nil
	}
	return ptr(s.serverSideID)
}

// ServerError is an error the server reported: a bad plan, a failed query,
// an unsupported operation. Message is the server's text.
type ServerError struct {
	// Code is the gRPC status code.
	Code Code
	// Message is the server's message ("[CLASS] ..." for a Spark error).
	Message string
	// ErrorClass is Spark's error class (TABLE_OR_VIEW_NOT_FOUND, ...),
	// "" when the server sent none.
	ErrorClass string
	// SQLState is the class's SQLSTATE (42P01, ...).
	SQLState string
	// Parameters are the message parameters, by Spark's names.
	Parameters map[string]string
}

func (e *ServerError) Error() string { return e.Message }

// rpcError turns a gRPC status into an error that says what happened and,
// for an unreachable server, what to do.
func (s *Session) rpcError(err error) error {
	var st *rpcStatus
	if !errors.As(err, &st) {
		return err
	}
	switch st.code {
	case CodeUnavailable:
		if st.noServer && s.conn != nil {
			return fmt.Errorf("atlas connect: no Atlas server at %s: start one with atlas up (or set %s to its address): %w",
				s.conn.target(), EnvConnectAddr, &ServerError{Code: st.code, Message: st.msg})
		}
		return fmt.Errorf("atlas connect: %w", &ServerError{Code: st.code, Message: st.msg})
	case CodeCanceled:
		return fmt.Errorf("atlas connect: %s: %w", st.msg, context.Canceled)
	case CodeDeadlineExceeded:
		return fmt.Errorf("atlas connect: %s: %w", st.msg, context.DeadlineExceeded)
	}
	se := &ServerError{Code: st.code, Message: st.msg}
	if st.code == CodeResourceExhausted && st.info == nil && strings.Contains(st.msg, "received message larger than max") {
		// grpc refuses it before the server sees it, in grpc's words.
		se.Message += "; the request is larger than the server accepts (its setting spark.connect.grpc.maxInboundMessageSize): send less per request, e.g. write large data to a file or table and read it there"
	}
	if st.info != nil {
		se.ErrorClass, se.SQLState, se.Parameters = st.info.class, st.info.sqlState, st.info.params
	}
	return se
}
