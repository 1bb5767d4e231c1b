package server

import (
	"context"
	"crypto/tls"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// rateQuery starts readStream.format("rate") → memory sink named name in
// c's session and returns the query's id.
func rateQuery(t *testing.T, c *client, name string) *pb.StreamingQueryInstanceId {
	t.Helper()
	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("rate"), Options: map[string]string{"rowsPerSecond": "10"},
	}}}}}
	resps, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: read, Format: "memory", OutputMode: "append", QueryName: name,
		Trigger: &pb.WriteStreamOperationStart_ProcessingTimeInterval{ProcessingTimeInterval: "100 milliseconds"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resps {
		if s := r.GetWriteStreamOperationStartResult(); s != nil {
			return s.GetQueryId()
		}
	}
	t.Fatal("no WriteStreamOperationStartResult")
	return nil
}

func wantCode(t *testing.T, what string, err error, code codes.Code, msgParts ...string) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("%s: got %v, want code %s", what, err, code)
	}
	for _, p := range msgParts {
		if !strings.Contains(status.Convert(err).Message(), p) {
			t.Fatalf("%s: message %q does not say %q", what, status.Convert(err).Message(), p)
		}
	}
}

// TestSecondPrincipalCannotReachQueries: a second principal (its own
// token) naming the first one's session id and user id reaches a session
// of its own: it lists none of the first one's queries, cannot stop them,
// cannot read their memory table, and releasing "the" session leaves the
// first one's query running.
func TestSecondPrincipalCannotReachQueries(t *testing.T) {
	const aliceToken, bobToken = "alice-token-0123456789abcdef", "bob-token-0123456789abcdefgh"
	srv, err := Start(Config{Addr: "127.0.0.1:0", NoResume: true, Conf: map[string]string{engine.ConfHome: t.TempDir()},
		Tokens: map[string]string{"alice": aliceToken, "bob": bobToken}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	alice := dialToken(t, srv.Addr(), aliceToken)
	id := rateQuery(t, alice, "alice_rates")
	alice.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}})

	bob := dialToken(t, srv.Addr(), bobToken)
	bob.session = alice.session // the same session id and user id ("test")
	if a := bob.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}}).GetActive().GetActiveQueries(); len(a) != 0 {
		t.Fatalf("bob lists %d of alice's queries", len(a))
	}
	_, err = bob.command(&pb.Command{CommandType: &pb.Command_StreamingQueryCommand{StreamingQueryCommand: &pb.StreamingQueryCommand{
		QueryId: id, Command: &pb.StreamingQueryCommand_Stop{Stop: true}}}})
	if err == nil {
		t.Fatal("bob stopped alice's query by its id")
	}
	if _, err := bob.tryRows(&pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT * FROM alice_rates"}}}); err == nil {
		t.Fatal("bob read alice's memory table")
	}
	if _, err := bob.rpc.ReleaseSession(context.Background(), &pb.ReleaseSessionRequest{SessionId: alice.session, UserContext: &pb.UserContext{UserId: "test"}}); err != nil {
		t.Fatal(err)
	}
	st := alice.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Status{Status: true}}).GetStatus()
	if !st.GetIsActive() {
		t.Fatalf("alice's query stopped after bob's calls: %v", st)
	}
	if a := alice.managerCmd(&pb.StreamingQueryManagerCommand{Command: &pb.StreamingQueryManagerCommand_Active{Active: true}}).GetActive().GetActiveQueries(); len(a) != 1 || a[0].GetId().GetId() != id.GetId() {
		t.Fatalf("alice lists %v, want her query %s", a, id.GetId())
	}
}

// TestTokenRequired: a call without a token, with a wrong one or with
// another scheme gets UNAUTHENTICATED naming the token file; the right one
// passes, on every RPC kind (unary and streaming).
func TestTokenRequired(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "connect.token")
	srv, err := Start(Config{Addr: "127.0.0.1:0", NoResume: true, Conf: map[string]string{engine.ConfHome: t.TempDir()},
		Tokens: testTokens, TokenFile: tokenFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	cfg := func(c *client) error {
		_, err := c.rpc.Config(context.Background(), &pb.ConfigRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
			Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Get{Get: &pb.ConfigRequest_Get{Keys: []string{"spark.sql.session.timeZone"}}}}})
		return err
	}
	for _, tc := range []struct{ name, token string }{{"no token", ""}, {"wrong token", "not-the-token-0123456789"}, {"prefix of the token", testToken[:len(testToken)-1]}} {
		c := dialToken(t, srv.Addr(), tc.token)
		wantCode(t, tc.name+": Config", cfg(c), codes.Unauthenticated, tokenFile)
		_, err := c.execute(&pb.Plan{OpType: &pb.Plan_Root{Root: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: "SELECT 1"}}}}})
		wantCode(t, tc.name+": ExecutePlan", err, codes.Unauthenticated, tokenFile)
	}
	basic := dialHeader(t, srv.Addr(), "Basic "+testToken)
	wantCode(t, "Basic scheme", cfg(basic), codes.Unauthenticated, "Bearer")
	if err := cfg(dial(t, srv.Addr())); err != nil {
		t.Fatalf("the right token: %v", err)
	}
}

// TestNoAuthOnlyOnLoopback: an unauthenticated server must listen on a
// loopback address.
func TestNoAuthOnlyOnLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		srv, err := Start(Config{Addr: addr, NoAuth: true, NoResume: true, Conf: map[string]string{engine.ConfHome: t.TempDir()}})
		if err == nil {
			srv.Stop()
			t.Fatalf("NoAuth on %s started", addr)
		}
		if !strings.Contains(err.Error(), "loopback") {
			t.Fatalf("NoAuth on %s: %v does not say loopback", addr, err)
		}
	}
}

// TestRemoteAddressNeedsOptInTLSAndToken: a non-loopback address is
// refused without the opt-in, then without TLS, naming what is missing.
func TestRemoteAddressNeedsOptInTLSAndToken(t *testing.T) {
	conf := map[string]string{engine.ConfHome: t.TempDir()}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Addr: "0.0.0.0:0", Tokens: testTokens}, EnvAllowRemote},
		{Config{Addr: "[::]:0", Tokens: testTokens}, EnvAllowRemote},
		{Config{Addr: ":0", Tokens: testTokens, AllowRemote: true}, EnvTLSCert},
		{Config{Addr: ":0", NoAuth: true, AllowRemote: true, TLS: &tls.Config{}}, "without authentication"},
	} {
		tc.cfg.Conf, tc.cfg.NoResume = conf, true
		srv, err := Start(tc.cfg)
		if err == nil {
			srv.Stop()
			t.Fatalf("%s started (%+v)", tc.cfg.Addr, tc.cfg)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: %v does not name %s", tc.cfg.Addr, err, tc.want)
		}
	}
}
