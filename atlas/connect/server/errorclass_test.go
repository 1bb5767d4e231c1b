package server

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// TestTypedErrorParameters: the planner and engine raise unknown columns,
// tables and paths and a division by zero with Spark's class, SQLSTATE and
// message parameters on every path, where the server used to find them
// by matching message text (and a division by zero stopped the query with
// arrow's "invalid: divide by zero" and no class). The proposals for
// `qtx` over (id, country, qty, price) are worked out by hand with
// Levenshtein distances from "qtx" to the quoted names: `qty` 3, `id` 4,
// `price` 7, `country` 8.
func TestTypedErrorParameters(t *testing.T) {
	home := t.TempDir()
	seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())
	sqlRel := func(q string) *pb.Relation { return &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: q}}} }
	proj := func(in *pb.Relation, e *pb.Expression) *pb.Relation {
		return &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: in, Expressions: []*pb.Expression{e}}}}
	}
	parquet := "parquet"
	missing := filepath.Join(t.TempDir(), "nope.parquet")
	readMissing := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{Format: &parquet, Paths: []string{missing}}}}}}
	orders := table("lakehouse.silver.orders")
	cases := []struct {
		what   string
		rel    *pb.Relation
		code   codes.Code
		class  string
		state  string
		params map[string]string
	}{
		{"unknown column (DataFrame)", proj(orders, col("qtx")), codes.InvalidArgument, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703",
			map[string]string{"objectName": "`qtx`", "proposal": "`qty`, `id`, `price`, `country`"}},
		{"unknown column (SQL)", sqlRel("SELECT qtx FROM lakehouse.silver.orders"), codes.InvalidArgument, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703",
			map[string]string{"objectName": "`qtx`", "proposal": "`qty`, `id`, `price`, `country`"}},
		{"unknown column (SQL WHERE)", sqlRel("SELECT id FROM lakehouse.silver.orders WHERE qtx > 1"), codes.InvalidArgument, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703",
			map[string]string{"objectName": "`qtx`"}},
		{"missing table (DataFrame)", table("lakehouse.silver.missing"), codes.NotFound, "TABLE_OR_VIEW_NOT_FOUND", "42P01",
			map[string]string{"relationName": "`lakehouse`.`silver`.`missing`"}},
		{"missing view (SQL)", sqlRel("SELECT * FROM nosuchview"), codes.NotFound, "TABLE_OR_VIEW_NOT_FOUND", "42P01",
			map[string]string{"relationName": "`nosuchview`"}},
		{"missing namespace (SQL)", sqlRel("SELECT * FROM lakehouse.nosuchns.t"), codes.NotFound, "TABLE_OR_VIEW_NOT_FOUND", "42P01",
			map[string]string{"relationName": "`lakehouse`.`nosuchns`.`t`"}},
		{"divide by zero (DataFrame)", proj(orders, fn("/", col("qty"), lit(0))), codes.InvalidArgument, "DIVIDE_BY_ZERO", "22012",
			map[string]string{"config": `"spark.sql.ansi.enabled"`}},
		{"divide by zero (SQL)", sqlRel("SELECT qty / 0 FROM lakehouse.silver.orders"), codes.InvalidArgument, "DIVIDE_BY_ZERO", "22012", nil},
		{"modulo by zero (SQL)", sqlRel("SELECT 7 % 0"), codes.InvalidArgument, "DIVIDE_BY_ZERO", "22012", nil},
		{"missing path", readMissing, codes.NotFound, "PATH_NOT_FOUND", "42K03",
			map[string]string{"path": "file:" + filepath.ToSlash(missing)}},
	}
	for _, tc := range cases {
		_, err := c.tryRows(tc.rel)
		code, md := errorInfoOf(t, err)
		if code != tc.code || md["errorClass"] != tc.class || md["sqlState"] != tc.state {
			t.Errorf("%s: got %v class %q state %q (%v), want %v %s %s", tc.what, code, md["errorClass"], md["sqlState"], err, tc.code, tc.class, tc.state)
			continue
		}
		var params map[string]string
		if err := json.Unmarshal([]byte(md["messageParameters"]), &params); err != nil {
			t.Fatalf("%s: messageParameters %q: %v", tc.what, md["messageParameters"], err)
		}
		for k, v := range tc.params {
			if params[k] != v {
				t.Errorf("%s: parameter %s = %q, want %q (all: %v)", tc.what, k, params[k], v, params)
			}
		}
		if !strings.Contains(err.Error(), "["+tc.class+"]") {
			t.Errorf("%s: message %q does not name [%s]", tc.what, err, tc.class)
		}
	}

	// Without ANSI, x / 0 and x % 0 are NULL, as in Spark.
	off := "false"
	if _, err := c.rpc.Config(context.Background(), &pb.ConfigRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
		Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{Pairs: []*pb.KeyValue{{Key: "spark.sql.ansi.enabled", Value: &off}}}}}}); err != nil {
		t.Fatal(err)
	}
	same(t, "ansi off", c.rows(sqlRel("SELECT 1 / 0 AS q, 7 % 0 AS r, 7.5 % 2 AS f, 7 / 2 AS h")), []string{"q=null r=null f=1.5 h=3.5"})
}
