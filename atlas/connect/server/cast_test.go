package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

func castMode(e *pb.Expression, typ string, mode pb.Expression_Cast_EvalMode) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Cast_{Cast: &pb.Expression_Cast{Expr: e, CastToType: &pb.Expression_Cast_TypeStr{TypeStr: typ}, EvalMode: mode}}}
}

// TestCastEvalMode sends Expression.Cast as PySpark 4's Connect client
// does: col.cast("int") leaves eval_mode unspecified (the session's
// spark.sql.ansi.enabled, true by default), col.try_cast("int") sets TRY.
// Under ANSI a malformed string fails with CAST_INVALID_INPUT, carried in
// the ErrorInfo as PySpark reads it (errorClass, sqlState, classes); TRY
// and LEGACY give NULL, and so does an unspecified mode once the client
// sets spark.sql.ansi.enabled=false.
func TestCastEvalMode(t *testing.T) {
	c := dial(t, startServer(t, t.TempDir()).Addr())
	src := c.sql("SELECT 'abc' AS s, '12' AS n")
	run := func(mode pb.Expression_Cast_EvalMode) ([]string, error) {
		return c.tryRows(project(src, as(castMode(col("n"), "int", mode), "n"), as(castMode(col("s"), "int", mode), "v")))
	}
	const want = `[CAST_INVALID_INPUT] The value 'abc' of the type "STRING" cannot be cast to "INT" because it is malformed.`
	checkErr := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: got %v, want %s", what, err, want)
		}
		st, _ := status.FromError(err)
		for _, d := range st.Details() {
			if info, ok := d.(*errdetails.ErrorInfo); ok {
				var classes []string
				_ = json.Unmarshal([]byte(info.GetMetadata()["classes"]), &classes)
				if info.GetMetadata()["errorClass"] != "CAST_INVALID_INPUT" || info.GetMetadata()["sqlState"] != "22018" ||
					len(classes) != 1 || classes[0] != "org.apache.spark.SparkNumberFormatException" {
					t.Fatalf("%s: ErrorInfo %v", what, info.GetMetadata())
				}
				return
			}
		}
		t.Fatalf("%s: no ErrorInfo in %v", what, err)
	}
	for _, m := range []pb.Expression_Cast_EvalMode{pb.Expression_Cast_EVAL_MODE_UNSPECIFIED, pb.Expression_Cast_EVAL_MODE_ANSI} {
		_, err := run(m)
		checkErr(m.String(), err)
	}
	for _, m := range []pb.Expression_Cast_EvalMode{pb.Expression_Cast_EVAL_MODE_TRY, pb.Expression_Cast_EVAL_MODE_LEGACY} {
		rows, err := run(m)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		same(t, m.String(), rows, []string{"n=12 v=null"})
	}
	off := "false"
	if _, err := c.rpc.Config(context.Background(), &pb.ConfigRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
		Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{Pairs: []*pb.KeyValue{{Key: "spark.sql.ansi.enabled", Value: &off}}}}}}); err != nil {
		t.Fatal(err)
	}
	rows, err := run(pb.Expression_Cast_EVAL_MODE_UNSPECIFIED)
	if err != nil {
		t.Fatalf("ansi off: %v", err)
	}
	same(t, "ansi off", rows, []string{"n=12 v=null"})
	_, err = run(pb.Expression_Cast_EVAL_MODE_ANSI)
	checkErr("ansi off, EVAL_MODE_ANSI", err)
}
