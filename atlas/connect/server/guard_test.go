package server

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// errorInfo returns the code, error class and SQLSTATE of a status.
func errorInfo(err error) (codes.Code, string, string) {
	st, _ := status.FromError(err)
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return st.Code(), info.GetMetadata()["errorClass"], info.GetMetadata()["sqlState"]
		}
	}
	return st.Code(), "", ""
}

// TestPanicInAHandlerBecomesInternalError calls the server's interceptors
// with handlers that panic, as a bug reached by a bad request would: the
// caller gets INTERNAL with Spark's INTERNAL_ERROR (XX000) and the log
// one line holding the panic and its stack.
func TestPanicInAHandlerBecomesInternalError(t *testing.T) {
	var log bytes.Buffer
	lim, _ := readLimits(nil)
	svc := newService(nil, lim, -1, &log, nil)
	close(svc.resumed)
	defer svc.close(context.Background())

	_, err := svc.recoverUnary(context.Background(), nil, &grpc.UnaryServerInfo{FullMethod: "/spark.connect.SparkConnectService/AnalyzePlan"},
		func(context.Context, any) (any, error) {
			var m map[string]int
			m["x"]++
			return nil, nil
		})
	code, class, state := errorInfo(err)
	if code != codes.Internal || class != "INTERNAL_ERROR" || state != "XX000" || !strings.Contains(err.Error(), "assignment to entry in nil map") {
		t.Fatalf("unary panic: %v (code %v, class %q, state %q)", err, code, class, state)
	}
	err = svc.recoverStream(nil, &fuzzStream{ctx: context.Background()}, &grpc.StreamServerInfo{FullMethod: "/spark.connect.SparkConnectService/ExecutePlan"},
		func(any, grpc.ServerStream) error {
			var rel *pb.Relation
			_ = rel.RelType.(*pb.Relation_Read) // nil pointer
			return nil
		})
	if code, class, _ := errorInfo(err); code != codes.Internal || class != "INTERNAL_ERROR" {
		t.Fatalf("stream panic: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one log line per panic, got %d:\n%s", len(lines), log.String())
	}
	for _, l := range lines {
		if !strings.Contains(l, "panic in /spark.connect.SparkConnectService/") || !strings.Contains(l, "guard_test.go") {
			t.Errorf("log line without the method or the stack: %s", l)
		}
	}
}

// TestHostileRequestsLeaveTheServerServing sends what took the server
// down or let one client exhaust it: 100,000 nested parentheses, a plan
// nested 5,000 expressions deep, a literal larger than the request limit,
// a constant LIMIT expression, a result larger than
// spark.driver.maxResultSize and more sessions than allowed. Each fails
// with an error naming its setting (or, for LIMIT 1+1, answers as Spark
// does), and the server still serves a session afterwards.
func TestHostileRequestsLeaveTheServerServing(t *testing.T) {
	home := t.TempDir()
	seedOrders(t, home)
	const studentToken = "student-token-0123456789abcdef"
	srv, err := Start(Config{Addr: "127.0.0.1:0", Tokens: map[string]string{OwnerPrincipal: testToken, "student": studentToken}, Conf: map[string]string{
		engine.ConfHome: home, ConfMaxSessionsPerUser: "4", ConfMaxSessions: "6",
		ConfMaxInbound: "4m", ConfMaxResultSize: "1k",
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	c := dial(t, srv.Addr())

	// Nesting in SQL: refused by the parser, not a stack overflow.
	const n = 100_000
	_, err = c.execute(&pb.Plan{OpType: &pb.Plan_Root{Root: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{
		Query: "SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n)}}}}})
	if code, class, state := errorInfo(err); code != codes.InvalidArgument || class != "FAILED_TO_PARSE_TOO_COMPLEX" || state != "54001" ||
		!strings.Contains(err.Error(), "spark.atlas.sql.parser.maxNestingDepth") {
		t.Fatalf("100,000 parentheses: %v", err)
	}
	// Nesting in the plan: refused before planning (600 levels, 1,200
	// messages), or by protobuf's decoder past its 10,000 levels; both
	// name the setting.
	nested := func(depth int) *pb.Plan {
		e := lit(1)
		for range depth {
			e = fn("+", lit(1), e)
		}
		return &pb.Plan{OpType: &pb.Plan_Root{Root: project(table("lakehouse.silver.orders"), as(e, "x"))}}
	}
	_, err = c.execute(nested(600))
	if code, _, _ := errorInfo(err); code != codes.ResourceExhausted || !strings.Contains(err.Error(), ConfRecursionLimit) {
		t.Fatalf("a plan nesting 600 expressions: %v", err)
	}
	if _, err = c.execute(nested(5000)); err == nil || !strings.Contains(err.Error(), ConfRecursionLimit) {
		t.Fatalf("a plan nesting 5,000 expressions (10,000 messages, past protobuf's own limit): %v", err)
	}
	// A literal beyond the request size (grpc refuses it before any
	// handler, with its own text; the Atlas client names the setting).
	_, err = c.execute(&pb.Plan{OpType: &pb.Plan_Root{Root: project(table("lakehouse.silver.orders"), slit(strings.Repeat("x", 5<<20)))}})
	if code, _, _ := errorInfo(err); code != codes.ResourceExhausted || !strings.Contains(err.Error(), "larger than max") {
		t.Fatalf("a 5 MiB literal over a 4 MiB limit: %v", err)
	}
	// LIMIT 1+1: one row, as in Spark (it was a nil-pointer panic).
	if got := c.rows(c.sql("SELECT 1 AS a LIMIT 1+1")); strings.Join(got, ";") != "a=1" {
		t.Fatalf("SELECT 1 AS a LIMIT 1+1: %v", got)
	}
	// A result beyond spark.driver.maxResultSize (1 KiB here; the table
	// holds 120 rows of four 8-byte columns).
	_, err = c.tryRows(table("lakehouse.silver.orders"))
	if code, _, _ := errorInfo(err); code != codes.ResourceExhausted || !strings.Contains(err.Error(), "is bigger than spark.driver.maxResultSize") {
		t.Fatalf("a result over spark.driver.maxResultSize: %v", err)
	}
	// A client cannot raise a server limit.
	_, err = c.rpc.Config(context.Background(), &pb.ConfigRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
		Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{Pairs: []*pb.KeyValue{{Key: ConfMaxResultSize, Value: ptr("0")}}}}}})
	if _, class, _ := errorInfo(err); class != "CANNOT_MODIFY_STATIC_CONFIG" {
		t.Fatalf("spark.conf.set(%s): %v", ConfMaxResultSize, err)
	}
	// Sessions: 4 per principal (c's is one), 6 in all. The user id is
	// the client's to choose, so varying it does not escape the limit.
	openAs := func(cl *client, user string) error {
		_, err := cl.rpc.Config(context.Background(), &pb.ConfigRequest{SessionId: uuid.NewString(), UserContext: &pb.UserContext{UserId: user},
			Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_GetAll{GetAll: &pb.ConfigRequest_GetAll{}}}})
		return err
	}
	open := func(user string) error { return openAs(c, user) }
	for i, user := range []string{"test", "alias-1", "alias-2"} {
		if err := open(user); err != nil {
			t.Fatalf("session %d of the owner: %v", i+2, err)
		}
	}
	if err := open("alias-3"); err == nil || !strings.Contains(err.Error(), ConfMaxSessionsPerUser) {
		t.Fatalf("a fifth session of the owner under yet another user id: %v", err)
	}
	student := dialToken(t, srv.Addr(), studentToken)
	for i := range 2 {
		if err := openAs(student, "test"); err != nil {
			t.Fatalf("session %d of the student: %v", i+1, err)
		}
	}
	if err := openAs(student, "test"); err == nil || !strings.Contains(err.Error(), ConfMaxSessions) {
		t.Fatalf("a seventh session: %v", err)
	}
	if code, _, _ := errorInfo(open("third")); code != codes.ResourceExhausted {
		t.Fatalf("refused session: code %v, want RESOURCE_EXHAUSTED", code)
	}
	// Still serving: c's session answers, and a released session's place
	// goes to a new one.
	if got := c.rows(c.sql("SELECT 2 AS b")); strings.Join(got, ";") != "b=2" {
		t.Fatalf("after the hostile requests: %v", got)
	}
	if _, err := c.rpc.ReleaseSession(context.Background(), &pb.ReleaseSessionRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"}}); err != nil {
		t.Fatal(err)
	}
	if err := open("third"); err != nil {
		t.Fatalf("a session after one was released: %v", err)
	}
}
