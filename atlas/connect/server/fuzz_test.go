package server

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// The fuzz targets feed the service's handlers request bodies mutated from
// real requests, through the same recovering interceptors as the server.
// A request may fail, but must never panic (even a recovered panic is a
// bug) nor hang: each gets a short deadline. Only batch relations run
// (Plan.root): commands start queries and write sinks, which a fuzzer
// must not aim at the machine's files.
//
//	go test -run '^$' -fuzz FuzzExecutePlan -fuzztime 30s ./atlas/connect/server
//	go test -run '^$' -fuzz FuzzAnalyzePlan -fuzztime 30s ./atlas/connect/server

// fuzzService is a service over a private lakehouse holding the orders
// table, its log kept to find recovered panics in.
type fuzzService struct {
	svc *service
	mu  sync.Mutex
	log bytes.Buffer
}

func (f *fuzzService) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log.Write(p)
}

// panicked returns and clears what the log says about recovered panics.
func (f *fuzzService) panicked() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.log.Reset()
	for _, l := range strings.Split(f.log.String(), "\n") {
		if strings.Contains(l, "panic in ") {
			return l
		}
	}
	return ""
}

func newFuzzService(f *testing.F) *fuzzService {
	home := f.TempDir()
	seedOrders(f, home)
	lim, err := readLimits(nil)
	if err != nil {
		f.Fatal(err)
	}
	fs := &fuzzService{}
	fs.svc = newService(map[string]string{engine.ConfHome: home}, lim, -1, fs, nil)
	close(fs.svc.resumed)
	f.Cleanup(func() { fs.svc.close(context.Background()) })
	return fs
}

// seedRelations are relations the clients send: reads, projections with
// functions, filters, aggregates, joins, SQL, sorts and limits.
func seedRelations() []*pb.Relation {
	orders := table("lakehouse.silver.orders")
	return []*pb.Relation{
		orders,
		project(orders, col("id"), as(fn("*", col("qty"), col("price")), "amount")),
		{RelType: &pb.Relation_Filter{Filter: &pb.Filter{Input: orders, Condition: fn(">", col("qty"), lit(3))}}},
		{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{Input: orders, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY,
			GroupingExpressions: []*pb.Expression{col("country")}, AggregateExpressions: []*pb.Expression{as(fn("sum", col("qty")), "n")}}}},
		{RelType: &pb.Relation_Limit{Limit: &pb.Limit{Input: orders, Limit: 3}}},
		{RelType: &pb.Relation_Sort{Sort: &pb.Sort{Input: orders, Order: []*pb.Expression_SortOrder{{Child: col("id"), Direction: pb.Expression_SortOrder_SORT_DIRECTION_DESCENDING}}}}},
		{RelType: &pb.Relation_Join{Join: &pb.Join{Left: subqueryAlias(orders, "a"), Right: subqueryAlias(orders, "b"), JoinType: pb.Join_JOIN_TYPE_INNER,
			JoinCondition: fn("==", col("a.id"), col("b.id"))}}},
		{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT country, count(*) AS n FROM lakehouse.silver.orders WHERE qty > 2 GROUP BY country ORDER BY n DESC LIMIT 1+1"}}},
		project(orders, as(fn("when", fn(">", col("qty"), lit(6)), slit("big"), slit("small")), "size"), castInt(slit("12"))),
		{RelType: &pb.Relation_ShowString{ShowString: &pb.ShowString{Input: orders, NumRows: 5, Truncate: 20}}},
	}
}

// fuzzStream is the server side of one ExecutePlan call, discarding what
// is sent.
type fuzzStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *fuzzStream) Context() context.Context           { return s.ctx }
func (s *fuzzStream) Send(*pb.ExecutePlanResponse) error { return s.ctx.Err() }
func (s *fuzzStream) SendMsg(any) error                  { return s.ctx.Err() }
func (s *fuzzStream) SetHeader(metadata.MD) error        { return nil }
func (s *fuzzStream) SendHeader(metadata.MD) error       { return nil }
func (s *fuzzStream) SetTrailer(metadata.MD)             {}

// fuzzDeadline bounds one fuzzed request.
const fuzzDeadline = 2 * time.Second

func FuzzExecutePlan(f *testing.F) {
	fs := newFuzzService(f)
	for _, rel := range seedRelations() {
		b, err := proto.Marshal(&pb.ExecutePlanRequest{SessionId: "00000000-0000-0000-0000-000000000001", UserContext: &pb.UserContext{UserId: "fuzz"},
			Plan: &pb.Plan{OpType: &pb.Plan_Root{Root: rel}}})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	info := &grpc.StreamServerInfo{FullMethod: "/spark.connect.SparkConnectService/ExecutePlan", IsServerStream: true}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := &pb.ExecutePlanRequest{}
		if proto.Unmarshal(body, req) != nil || req.GetPlan().GetRoot() == nil {
			return
		}
		req.SessionId = "00000000-0000-0000-0000-000000000001"
		req.ClientObservedServerSideSessionId = nil
		ctx, cancel := context.WithTimeout(context.Background(), fuzzDeadline)
		defer cancel()
		_ = fs.svc.recoverStream(nil, &fuzzStream{ctx: ctx}, info, func(_ any, ss grpc.ServerStream) error {
			return fs.svc.ExecutePlan(req, ss.(*fuzzStream))
		})
		if p := fs.panicked(); p != "" {
			t.Fatalf("the request panicked: %s\nrequest: %v", p, req)
		}
	})
}

func FuzzAnalyzePlan(f *testing.F) {
	fs := newFuzzService(f)
	for _, rel := range seedRelations() {
		plan := &pb.Plan{OpType: &pb.Plan_Root{Root: rel}}
		for _, a := range []*pb.AnalyzePlanRequest{
			{Analyze: &pb.AnalyzePlanRequest_Schema_{Schema: &pb.AnalyzePlanRequest_Schema{Plan: plan}}},
			{Analyze: &pb.AnalyzePlanRequest_Explain_{Explain: &pb.AnalyzePlanRequest_Explain{Plan: plan}}},
			{Analyze: &pb.AnalyzePlanRequest_TreeString_{TreeString: &pb.AnalyzePlanRequest_TreeString{Plan: plan}}},
			{Analyze: &pb.AnalyzePlanRequest_IsStreaming_{IsStreaming: &pb.AnalyzePlanRequest_IsStreaming{Plan: plan}}},
		} {
			a.SessionId, a.UserContext = "00000000-0000-0000-0000-000000000002", &pb.UserContext{UserId: "fuzz"}
			b, err := proto.Marshal(a)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	for _, ddl := range []string{"a int, b struct<c: array<string>>", "struct<x: map<string, decimal(10,2)>>"} {
		b, _ := proto.Marshal(&pb.AnalyzePlanRequest{SessionId: "00000000-0000-0000-0000-000000000002", Analyze: &pb.AnalyzePlanRequest_DdlParse{DdlParse: &pb.AnalyzePlanRequest_DDLParse{DdlString: ddl}}})
		f.Add(b)
	}
	info := &grpc.UnaryServerInfo{FullMethod: "/spark.connect.SparkConnectService/AnalyzePlan"}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := &pb.AnalyzePlanRequest{}
		if proto.Unmarshal(body, req) != nil {
			return
		}
		req.SessionId = "00000000-0000-0000-0000-000000000002"
		req.ClientObservedServerSideSessionId = nil
		ctx, cancel := context.WithTimeout(context.Background(), fuzzDeadline)
		defer cancel()
		_, _ = fs.svc.recoverUnary(ctx, req, info, func(ctx context.Context, r any) (any, error) {
			return fs.svc.AnalyzePlan(ctx, r.(*pb.AnalyzePlanRequest))
		})
		if p := fs.panicked(); p != "" {
			t.Fatalf("the request panicked: %s\nrequest: %v", p, req)
		}
	})
}
