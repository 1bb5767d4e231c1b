package server

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/guard"
)

// Spark's error class of a bug: INTERNAL_ERROR, SQLSTATE XX000.
const (
	classInternalError = "INTERNAL_ERROR"
	stateInternalError = "XX000"
)

// recoverUnary turns a panic of a unary handler into INTERNAL with
// Spark's INTERNAL_ERROR class, and logs it with its stack: a bad request
// never takes the server (and the daemon it runs in) down.
func (s *service) recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, s.internalError(guard.Recovered(info.FullMethod, p))
			return
		}
		s.logPanic(err)
	}()
	return handler(ctx, req)
}

// recoverStream is recoverUnary for the streaming handlers (ExecutePlan,
// ReattachExecute).
func (s *service) recoverStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = s.internalError(guard.Recovered(info.FullMethod, p))
			return
		}
		s.logPanic(err)
	}()
	return handler(srv, ss)
}

// internalError logs a panic recovered in a handler and returns the
// status the client gets.
func (s *service) internalError(pe *guard.PanicError) error {
	s.logf("panic in %s (recovered; the request failed with INTERNAL_ERROR): %v; stack: %s", pe.Where, pe.Value, pe.StackLine())
	return panicStatus(pe)
}

// logPanic logs the panic a handler's error carries: one recovered on
// another goroutine of the request (an operator's worker) or of a query.
func (s *service) logPanic(err error) {
	if pe := guard.AsPanic(err); pe != nil {
		s.logf("panic in %s (recovered; the request failed with INTERNAL_ERROR): %v; stack: %s", pe.Where, pe.Value, pe.StackLine())
	}
}

// panicStatus is INTERNAL with Spark's INTERNAL_ERROR class; it keeps the
// PanicError for logPanic (grpc sends the status it carries).
func panicStatus(pe *guard.PanicError) error {
	st, _ := status.FromError(withInfo(codes.Internal, classInternalError, stateInternalError, classSpark,
		"[INTERNAL_ERROR] "+pe.Error()+". The server recovered and keeps serving; this is a bug in Atlas: report it with the server log's line for this panic."))
	return &statusCause{st: st, cause: pe}
}

// statusCause is a gRPC status that remembers the error it reports.
type statusCause struct {
	st    *status.Status
	cause error
}

func (e *statusCause) Error() string { return e.st.Err().Error() }

// GRPCStatus is the status grpc sends.
func (e *statusCause) GRPCStatus() *status.Status { return e.st }

// Unwrap is the error reported.
func (e *statusCause) Unwrap() error { return e.cause }

// logQueryPanic logs, once sq ends, the panic that ended it, if one did
// (the query's run loop recovers it: the query fails, the server goes on).
func (s *service) logQueryPanic(sq *engine.StreamingQuery) {
	go func() {
		select {
		case <-sq.Done():
		case <-s.stop:
			return
		}
		if pe := guard.AsPanic(sq.Exception()); pe != nil {
			s.logf("panic in %s (recovered; the query failed with it): %v; stack: %s", pe.Where, pe.Value, pe.StackLine())
		}
	}()
}
