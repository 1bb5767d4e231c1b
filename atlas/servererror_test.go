package atlas

import (
	"encoding/base64"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// TestServerErrorFromStatusDetails: the grpc-status-details-bin trailer a
// Spark Connect server sends (a google.rpc.Status holding an ErrorInfo,
// encoded here by grpc-go itself) gives ServerError its error class,
// SQLSTATE and parameters, and errors.Is matches the class's sentinel.
func TestServerErrorFromStatusDetails(t *testing.T) {
	st, err := status.New(codes.NotFound, "[TABLE_OR_VIEW_NOT_FOUND] ...").WithDetails(&errdetails.ErrorInfo{
		Reason: "org.apache.spark.sql.AnalysisException", Domain: "org.apache.spark",
		Metadata: map[string]string{"errorClass": "TABLE_OR_VIEW_NOT_FOUND", "sqlState": "42P01",
			"messageParameters": `{"relationName":"` + "`lakehouse`.`silver`.`missing`" + `"}`, "classes": `["org.apache.spark.sql.AnalysisException"]`},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(st.Proto())
	if err != nil {
		t.Fatal(err)
	}
	info := parseStatusDetails(base64.RawStdEncoding.EncodeToString(b))
	if info == nil {
		t.Fatal("no ErrorInfo read")
	}
	s := &Session{}
	got := s.rpcError(&rpcStatus{code: CodeNotFound, msg: "m", info: info})
	var se *ServerError
	if !errors.As(got, &se) {
		t.Fatalf("%T is not a ServerError", got)
	}
	if se.ErrorClass != "TABLE_OR_VIEW_NOT_FOUND" || se.SQLState != "42P01" || se.Parameters["relationName"] != "`lakehouse`.`silver`.`missing`" {
		t.Fatalf("ServerError %+v", se)
	}
	if !errors.Is(fmt.Errorf("wrapped: %w", got), ErrTableOrViewNotFound) || errors.Is(got, ErrUnresolvedColumn) {
		t.Fatal("errors.Is does not match by error class")
	}
	sub := &ServerError{ErrorClass: "UNRESOLVED_COLUMN.WITH_SUGGESTION"}
	if !errors.Is(sub, ErrUnresolvedColumn) {
		t.Fatal("a subclass does not match its main class's sentinel")
	}
	if parseStatusDetails("!!") != nil || parseStatusDetails("") != nil {
		t.Fatal("garbage details read as an ErrorInfo")
	}
}
