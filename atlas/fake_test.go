package atlas_test

import (
	"bytes"
	"context"
	"net"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	protolite "github.com/aperturerobotics/protobuf-go-lite"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/atlas-lakehouse/atlas/atlas"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// fakeServer is a Spark Connect server that answers with what a test
// tells it and records every request: it checks the client's encoding
// only; behaviour is tested against the real server.
type fakeServer struct {
	pb.UnimplementedSparkConnectServiceServer
	execute func(req *pb.ExecutePlanRequest, stream pb.SparkConnectService_ExecutePlanServer) error
	analyze func(req *pb.AnalyzePlanRequest) (*pb.AnalyzePlanResponse, error)
	config  func(req *pb.ConfigRequest) (*pb.ConfigResponse, error)

	mu       sync.Mutex
	executed []*pb.ExecutePlanRequest
	analyzed []*pb.AnalyzePlanRequest
	configs  []*pb.ConfigRequest
}

func (f *fakeServer) ExecutePlan(req *pb.ExecutePlanRequest, stream pb.SparkConnectService_ExecutePlanServer) error {
	f.mu.Lock()
	f.executed = append(f.executed, req)
	f.mu.Unlock()
	if f.execute == nil {
		return nil
	}
	return f.execute(req, stream)
}

func (f *fakeServer) AnalyzePlan(_ context.Context, req *pb.AnalyzePlanRequest) (*pb.AnalyzePlanResponse, error) {
	f.mu.Lock()
	f.analyzed = append(f.analyzed, req)
	f.mu.Unlock()
	return f.analyze(req)
}

func (f *fakeServer) Config(_ context.Context, req *pb.ConfigRequest) (*pb.ConfigResponse, error) {
	f.mu.Lock()
	f.configs = append(f.configs, req)
	f.mu.Unlock()
	if f.config != nil {
		return f.config(req)
	}
	return &pb.ConfigResponse{}, nil
}

func (f *fakeServer) requests() []*pb.ExecutePlanRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*pb.ExecutePlanRequest(nil), f.executed...)
}

// startFake serves f on a loopback port and returns a session on it.
func startFake(t *testing.T, f *fakeServer) *atlas.Session {
	t.Helper()
	spark := atlas.Builder().Remote(serveFake(t, f)).GetOrCreate()
	t.Cleanup(spark.Close) // before the server stops (cleanups run last first)
	return spark
}

// serveFake serves f on a loopback port until the test ends and returns
// its Spark Connect URL. Every request the client sends is checked against
// the server's decoding of it (wireCodec).
func serveFake(t *testing.T, f *fakeServer) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(grpc.ForceServerCodec(wireCodec{t}))
	pb.RegisterSparkConnectServiceServer(g, f)
	go func() { _ = g.Serve(ln) }()
	t.Cleanup(g.Stop)
	return "sc://" + ln.Addr().String()
}

// arrowResponse encodes rec as one ExecutePlanResponse.arrow_batch.
func arrowResponse(t *testing.T, rec arrow.RecordBatch) *pb.ExecutePlanResponse {
	t.Helper()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_ArrowBatch_{
		ArrowBatch: &pb.ExecutePlanResponse_ArrowBatch{RowCount: rec.NumRows(), Data: buf.Bytes()},
	}}
}

// asServer returns the server's decoding of m, a message the client built:
// m encoded by the client's generated code (sparklite) and decoded into
// into, the server's type (sparkpb), as they meet on the wire.
func asServer[M proto.Message](t *testing.T, m protolite.Message, into M) M {
	t.Helper()
	b, err := m.MarshalVT()
	if err != nil {
		t.Fatalf("encode %T: %v", m, err)
	}
	if err := proto.Unmarshal(b, into); err != nil {
		t.Fatalf("decode %T as %T: %v", m, into, err)
	}
	return into
}

// withoutPlanIDs returns a copy of m without RelationCommon (plan ids are
// per-session counters, not part of the shape being compared).
func withoutPlanIDs[M proto.Message](m M) M {
	c := proto.Clone(m).(M)
	clearCommon(c.ProtoReflect())
	return c
}

func clearCommon(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() != nil && fd.Message().FullName() == "spark.connect.RelationCommon":
			m.Clear(fd)
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				clearCommon(l.Get(i).Message())
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				clearCommon(mv.Message())
				return true
			})
		case fd.Message() != nil && !fd.IsMap():
			clearCommon(v.Message())
		}
		return true
	})
}
