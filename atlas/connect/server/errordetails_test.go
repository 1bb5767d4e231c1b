package server

import (
	"context"
	"strings"
	"testing"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// TestFetchErrorDetails: an error's ErrorInfo carries an errorId, and
// FetchErrorDetails returns that error once (its message, exception
// classes, Spark error class, SQLSTATE and parameters), as Spark's server
// does; a second fetch, or an id of another session, answers nothing.
func TestFetchErrorDetails(t *testing.T) {
	home := t.TempDir()
	seedOrders(t, home)
	srv := startServer(t, home)
	c := dial(t, srv.Addr())
	_, err := c.tryRows(table("lakehouse.silver.missing"))
	_, md := errorInfoOf(t, err)
	id := md["errorId"]
	if id == "" {
		t.Fatalf("no errorId in %v", md)
	}
	fetch := func(c *client, id string) *pb.FetchErrorDetailsResponse {
		t.Helper()
		resp, err := c.rpc.FetchErrorDetails(context.Background(), &pb.FetchErrorDetailsRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"}, ErrorId: id})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	other := dial(t, srv.Addr())
	if got := fetch(other, id); len(got.GetErrors()) != 0 {
		t.Errorf("another session fetched the error: %v", got)
	}
	resp := fetch(c, id)
	if resp.GetSessionId() != c.session || resp.GetServerSideSessionId() == "" || resp.RootErrorIdx == nil || len(resp.GetErrors()) != 1 {
		t.Fatalf("response %v", resp)
	}
	e := resp.GetErrors()[resp.GetRootErrorIdx()]
	th := e.GetSparkThrowable()
	if e.GetMessage() != statusMessage(err) || th.GetErrorClass() != "TABLE_OR_VIEW_NOT_FOUND" || th.GetSqlState() != "42P01" ||
		th.GetMessageParameters()["relationName"] != "`lakehouse`.`silver`.`missing`" || len(e.GetErrorTypeHierarchy()) == 0 ||
		e.GetErrorTypeHierarchy()[0] != classAnalysis {
		t.Errorf("error %v, want the status's message %q, TABLE_OR_VIEW_NOT_FOUND 42P01 with relationName, AnalysisException", e, statusMessage(err))
	}
	if again := fetch(c, id); len(again.GetErrors()) != 0 || again.RootErrorIdx != nil {
		t.Errorf("second fetch: %v, want nothing (an error is fetched once)", again)
	}

	// AnalyzePlan errors get an id too.
	_, err = c.rpc.AnalyzePlan(context.Background(), &pb.AnalyzePlanRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
		Analyze: &pb.AnalyzePlanRequest_Schema_{Schema: &pb.AnalyzePlanRequest_Schema{Plan: &pb.Plan{OpType: &pb.Plan_Root{Root: table("lakehouse.silver.missing")}}}}})
	if _, md := errorInfoOf(t, err); md["errorId"] == "" || len(fetch(c, md["errorId"]).GetErrors()) != 1 {
		t.Errorf("AnalyzePlan error %v: no fetchable errorId (%v)", err, md)
	}
}

// statusMessage is the message of a gRPC status error.
func statusMessage(err error) string {
	s := err.Error()
	if _, m, ok := strings.Cut(s, "desc = "); ok {
		return m
	}
	return s
}
