package server

import (
	"context"
	"encoding/json"
	"maps"
	"sync"

	"github.com/google/uuid"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// maxErrorDetails bounds the errors a session keeps for FetchErrorDetails:
// the oldest is dropped past it. A client fetches an error right after it
// sees it, so a few suffice.
const maxErrorDetails = 32

// errorDetails keeps the errors a session answered, by error id, until
// FetchErrorDetails fetches them (once, as Spark's server does).
type errorDetails struct {
	mu    sync.Mutex
	order []string
	byID  map[string]*pb.FetchErrorDetailsResponse_Error
}

func (d *errorDetails) put(id string, e *pb.FetchErrorDetailsResponse_Error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byID == nil {
		d.byID = map[string]*pb.FetchErrorDetailsResponse_Error{}
	}
	for len(d.order) >= maxErrorDetails {
		delete(d.byID, d.order[0])
		d.order = d.order[1:]
	}
	d.order = append(d.order, id)
	d.byID[id] = e
}

// take returns and forgets the error of id.
func (d *errorDetails) take(id string) (*pb.FetchErrorDetailsResponse_Error, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.byID[id]
	if ok {
		delete(d.byID, id)
		for i, o := range d.order {
			if o == id {
				d.order = append(d.order[:i], d.order[i+1:]...)
				break
			}
		}
	}
	return e, ok
}

// withErrorID gives the ErrorInfo detail of the status err an errorId, as
// Spark's server does (spark.sql.connect.enrichError.enabled, on by
// default), and keeps the error for FetchErrorDetails. Other errors pass
// unchanged.
func (s *session) withErrorID(err error) error {
	st, ok := status.FromError(err)
	if !ok || err == nil {
		return err
	}
	p := st.Proto()
	for i, d := range p.GetDetails() {
		info := &errdetails.ErrorInfo{}
		if d.UnmarshalTo(info) != nil {
			continue
		}
		id := uuid.NewString()
		info.Metadata = maps.Clone(info.GetMetadata())
		if info.Metadata == nil {
			info.Metadata = map[string]string{}
		}
		info.Metadata["errorId"] = id
		a, aerr := anypb.New(info)
		if aerr != nil {
			return err
		}
		p.Details[i] = a
		s.errs.put(id, detailOf(st.Message(), info))
		return status.FromProto(p).Err()
	}
	return err
}

// detailOf is FetchErrorDetails' Error of a status: its whole message, the
// exception classes PySpark maps it by, and the Spark error class, SQLSTATE
// and message parameters.
func detailOf(msg string, info *errdetails.ErrorInfo) *pb.FetchErrorDetailsResponse_Error {
	md := info.GetMetadata()
	e := &pb.FetchErrorDetailsResponse_Error{Message: msg}
	var classes []string
	if json.Unmarshal([]byte(md["classes"]), &classes) == nil {
		e.ErrorTypeHierarchy = classes
	}
	if md["errorClass"] == "" && md["sqlState"] == "" {
		return e
	}
	t := &pb.FetchErrorDetailsResponse_SparkThrowable{}
	if c := md["errorClass"]; c != "" {
		t.ErrorClass = proto.String(c)
	}
	if st := md["sqlState"]; st != "" {
		t.SqlState = proto.String(st)
	}
	var params map[string]string
	if json.Unmarshal([]byte(md["messageParameters"]), &params) == nil && len(params) > 0 {
		t.MessageParameters = params
	}
	e.SparkThrowable = t
	return e
}

// FetchErrorDetails returns the error an earlier response of the session
// named by its errorId, once; an unknown or fetched id answers an empty
// response, as Spark's server does.
func (s *service) FetchErrorDetails(ctx context.Context, req *pb.FetchErrorDetailsRequest) (*pb.FetchErrorDetailsResponse, error) {
	sess, err := s.session(ctx, req.GetUserContext(), req.GetSessionId(), req.ClientObservedServerSideSessionId)
	if err != nil {
		return nil, err
	}
	resp := &pb.FetchErrorDetailsResponse{SessionId: sess.key.id, ServerSideSessionId: sess.serverSideID}
	if e, ok := sess.errs.take(req.GetErrorId()); ok {
		resp.RootErrorIdx = proto.Int32(0)
		resp.Errors = []*pb.FetchErrorDetailsResponse_Error{e}
	}
	return resp, nil
}
