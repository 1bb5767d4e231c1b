package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// order is one row of the test table lakehouse.silver.orders.
type order struct {
	id      int64
	country string
	qty     int64
	price   float64
}

// testOrders is the known data the tests write through the engine and
// compute expected results from in plain Go.
func testOrders() []order {
	countries := []string{"NL", "FR", "DE", "BE", "IT"}
	out := make([]order, 120)
	for i := range out {
		out[i] = order{id: int64(i + 1), country: countries[(i*7)%5], qty: int64(i%9 + 1), price: float64(i%13) + 0.5}
	}
	return out
}

// seedOrders writes testOrders into lakehouse.silver.orders under home.
func seedOrders(t testing.TB, home string) []order {
	t.Helper()
	s := engine.Builder().Config(engine.ConfHome, home).GetOrCreate()
	defer s.Stop()
	orders := testOrders()
	var vals []string
	for _, o := range orders {
		vals = append(vals, fmt.Sprintf("(%d, '%s', %d, %g)", o.id, o.country, o.qty, o.price))
	}
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.silver",
		"CREATE TABLE lakehouse.silver.orders (id bigint, country string, qty bigint, price double) USING iceberg",
		"INSERT INTO lakehouse.silver.orders VALUES " + strings.Join(vals, ", "),
	} {
		if _, err := s.SQL(q); err != nil {
			t.Fatalf("%s: %v", q[:min(len(q), 60)], err)
		}
	}
	return orders
}

// startServer runs a server on a free loopback port over a private home.
func startServer(t *testing.T, home string) *Server {
	t.Helper()
	srv, err := Start(Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: map[string]string{engine.ConfHome: home}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

// startKafkaServer runs an embedded broker with the given partitions and a
// server over home that reads it; both stop at the end of the test.
func startKafkaServer(t *testing.T, partitions int, home string) (*Server, *stack.Broker) {
	t.Helper()
	b, err := stack.NewBroker(stack.BrokerOptions{Partitions: partitions})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	srv, err := Start(Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: map[string]string{engine.ConfHome: home, engine.ConfKafkaBrokers: b.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv, b
}

// client is a raw Spark Connect client of one session.
type client struct {
	t       *testing.T
	rpc     pb.SparkConnectServiceClient
	session string
}

// testToken is the owner's token of the tests' servers (testTokens),
// which dial sends with every call.
const testToken = "atlas-test-token-0123456789"

// testTokens are the Config.Tokens of the tests' servers.
var testTokens = map[string]string{OwnerPrincipal: testToken}

// authHeader sends an Authorization header with every call over a
// plaintext loopback connection, as the Atlas client does.
type authHeader string

func (h authHeader) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": string(h)}, nil
}

func (authHeader) RequireTransportSecurity() bool { return false }

func dial(t *testing.T, addr string) *client { return dialToken(t, addr, testToken) }

// dialToken connects with another bearer token ("" sends none).
func dialToken(t *testing.T, addr, token string) *client {
	t.Helper()
	if token == "" {
		return dialHeader(t, addr, "")
	}
	return dialHeader(t, addr, "Bearer "+token)
}

// dialHeader connects sending the Authorization header value ("" sends
// none).
func dialHeader(t *testing.T, addr, value string) *client {
	t.Helper()
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if value != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(authHeader(value)))
	}
	conn, err := grpc.NewClient(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &client{t: t, rpc: pb.NewSparkConnectServiceClient(conn), session: uuid.NewString()}
}

// execute runs a plan and returns every response.
func (c *client) execute(plan *pb.Plan) ([]*pb.ExecutePlanResponse, error) {
	stream, err := c.rpc.ExecutePlan(context.Background(), &pb.ExecutePlanRequest{
		SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"}, Plan: plan,
	})
	if err != nil {
		return nil, err
	}
	var out []*pb.ExecutePlanResponse
	for {
		r, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

// rows runs a relation and renders its rows as sorted "a=1 b=x" lines.
func (c *client) rows(rel *pb.Relation) []string {
	c.t.Helper()
	lines, err := c.tryRows(rel)
	if err != nil {
		c.t.Fatal(err)
	}
	return lines
}

func (c *client) tryRows(rel *pb.Relation) ([]string, error) {
	resps, err := c.execute(&pb.Plan{OpType: &pb.Plan_Root{Root: rel}})
	if err != nil {
		return nil, err
	}
	if len(resps) == 0 || resps[len(resps)-1].GetResultComplete() == nil {
		return nil, fmt.Errorf("the response stream does not end with ResultComplete")
	}
	var lines []string
	for _, r := range resps {
		if r.GetSessionId() != c.session {
			return nil, fmt.Errorf("response for session %q, want %q", r.GetSessionId(), c.session)
		}
		b := r.GetArrowBatch()
		if b == nil {
			continue
		}
		schema, recs, err := planner.ReadIPC(b.GetData())
		if err != nil {
			return nil, err
		}
		var n int64
		for _, rec := range recs {
			n += rec.NumRows()
			lines = append(lines, render(schema, rec)...)
			rec.Release()
		}
		if n != b.GetRowCount() {
			return nil, fmt.Errorf("arrow batch row_count %d, data holds %d rows", b.GetRowCount(), n)
		}
	}
	sort.Strings(lines)
	return lines, nil
}

// sql runs spark.sql(query) as the clients do: a SqlCommand, then the
// relation it answers with.
func (c *client) sql(query string) *pb.Relation {
	c.t.Helper()
	resps, err := c.execute(&pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{
		CommandType: &pb.Command_SqlCommand{SqlCommand: &pb.SqlCommand{Input: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: query}}}}},
	}}})
	if err != nil {
		c.t.Fatalf("%s: %v", query, err)
	}
	for _, r := range resps {
		if res := r.GetSqlCommandResult(); res != nil {
			return res.GetRelation()
		}
	}
	c.t.Fatalf("%s: no sql_command_result", query)
	return nil
}

func render(schema *arrow.Schema, rec arrow.RecordBatch) []string {
	var out []string
	for i := 0; i < int(rec.NumRows()); i++ {
		parts := make([]string, rec.NumCols())
		for j := range parts {
			col := rec.Column(j)
			v := "null"
			if !col.IsNull(i) {
				v = col.ValueStr(i)
			}
			parts[j] = schema.Field(j).Name + "=" + v
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func sorted(lines []string) []string { sort.Strings(lines); return lines }

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\ngot  (%d)\n  %s\nwant (%d)\n  %s", what, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
	}
}

// Plan builders, as the clients build them.

func table(name string) *pb.Relation {
	return &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_NamedTable_{NamedTable: &pb.Read_NamedTable{UnparsedIdentifier: name}}}}}
}

func col(name string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_UnresolvedAttribute_{UnresolvedAttribute: &pb.Expression_UnresolvedAttribute{UnparsedIdentifier: name}}}
}

func lit(v int64) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Long{Long: v}}}}
}

func fn(name string, args ...*pb.Expression) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_UnresolvedFunction_{UnresolvedFunction: &pb.Expression_UnresolvedFunction{FunctionName: name, Arguments: args}}}
}

func as(e *pb.Expression, name string) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Alias_{Alias: &pb.Expression_Alias{Expr: e, Name: []string{name}}}}
}
