package server

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// errorInfoOf is the gRPC code and Spark ErrorInfo metadata of err.
func errorInfoOf(t *testing.T, err error) (codes.Code, map[string]string) {
	t.Helper()
	st, ok := status.FromError(err)
	if !ok || err == nil {
		t.Fatalf("not a status: %v", err)
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return st.Code(), info.GetMetadata()
		}
	}
	return st.Code(), nil
}

// TestErrorClassesOnEveryPath: the same mistake made through SQL and
// through a DataFrame plan answers one gRPC code and Spark's error class,
// SQLSTATE and parameters (Spark 4.0's error-conditions.json).
func TestErrorClassesOnEveryPath(t *testing.T) {
	home := t.TempDir()
	seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())
	sqlRel := func(q string) *pb.Relation { return &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: q}}} }
	proj := func(in *pb.Relation, e *pb.Expression) *pb.Relation {
		return &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: in, Expressions: []*pb.Expression{e}}}}
	}
	cases := []struct {
		what  string
		rel   *pb.Relation
		code  codes.Code
		class string
		state string
		param string
	}{
		{"missing table (SQL)", sqlRel("SELECT * FROM lakehouse.silver.missing"), codes.NotFound, "TABLE_OR_VIEW_NOT_FOUND", "42P01", ""},
		{"missing table (DataFrame)", table("lakehouse.silver.missing"), codes.NotFound, "TABLE_OR_VIEW_NOT_FOUND", "42P01", ""},
		{"unknown column (DataFrame)", proj(table("lakehouse.silver.orders"), col("nope")), codes.InvalidArgument, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703", ""},
		{"unknown column (SQL)", sqlRel("SELECT nope FROM lakehouse.silver.orders"), codes.InvalidArgument, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703", ""},
		{"parse error", sqlRel("SELEC 1"), codes.InvalidArgument, "PARSE_SYNTAX_ERROR", "42601", ""},
		{"unknown function", proj(table("lakehouse.silver.orders"), fn("nosuchfn", col("id"))), codes.InvalidArgument, "UNRESOLVED_ROUTINE", "42883", "routineName=`nosuchfn`"},
		{"toDF arity", &pb.Relation{RelType: &pb.Relation_ToDf{ToDf: &pb.ToDF{Input: table("lakehouse.silver.orders"), ColumnNames: []string{"a"}}}}, codes.InvalidArgument, "NUM_COLUMNS_MISMATCH", "42826", ""},
	}
	for _, tc := range cases {
		_, err := c.tryRows(tc.rel)
		code, md := errorInfoOf(t, err)
		if code != tc.code || md["errorClass"] != tc.class || md["sqlState"] != tc.state {
			t.Errorf("%s: got %v class %q state %q (%v), want %v %s %s", tc.what, code, md["errorClass"], md["sqlState"], err, tc.code, tc.class, tc.state)
		}
		if k, v, ok := strings.Cut(tc.param, "="); ok && !strings.Contains(md["messageParameters"], fmt.Sprintf("%q:%q", k, v)) {
			t.Errorf("%s: messageParameters %s, want %s", tc.what, md["messageParameters"], tc.param)
		}
	}
}

func write(c *client, w *pb.WriteOperation) error {
	_, err := c.command(&pb.Command{CommandType: &pb.Command_WriteOperation{WriteOperation: w}})
	return err
}

// TestBatchWriteModes: df.write.saveAsTable / insertInto / parquet with
// each of Spark's save modes; the table's rows after each step are worked
// out from the 120 seeded orders.
func TestBatchWriteModes(t *testing.T) {
	home := t.TempDir()
	orders := seedOrders(t, home)
	c := dial(t, startServer(t, home).Addr())
	nl := &pb.Relation{RelType: &pb.Relation_Filter{Filter: &pb.Filter{Input: table("lakehouse.silver.orders"),
		Condition: fn("==", col("country"), &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_String_{String_: "NL"}}}})}}}
	var nlN int
	for _, o := range orders {
		if o.country == "NL" {
			nlN++
		}
	}
	saveAs := func(mode pb.WriteOperation_SaveMode, method pb.WriteOperation_SaveTable_TableSaveMethod) error {
		return write(c, &pb.WriteOperation{Input: nl, Mode: mode, SaveType: &pb.WriteOperation_Table{Table: &pb.WriteOperation_SaveTable{TableName: "lakehouse.silver.nl", SaveMethod: method}}})
	}
	count := func() string {
		return strings.Join(c.rows(c.sql("SELECT count(*) FROM lakehouse.silver.nl")), ",")
	}
	steps := []struct {
		what  string
		mode  pb.WriteOperation_SaveMode
		meth  pb.WriteOperation_SaveTable_TableSaveMethod
		class string
		rows  int
	}{
		{"saveAsTable creates", pb.WriteOperation_SAVE_MODE_UNSPECIFIED, pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_SAVE_AS_TABLE, "", nlN},
		{"saveAsTable errorifexists", pb.WriteOperation_SAVE_MODE_ERROR_IF_EXISTS, pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_SAVE_AS_TABLE, "TABLE_OR_VIEW_ALREADY_EXISTS", nlN},
		{"saveAsTable ignore", pb.WriteOperation_SAVE_MODE_IGNORE, pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_SAVE_AS_TABLE, "", nlN},
		{"saveAsTable append", pb.WriteOperation_SAVE_MODE_APPEND, pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_SAVE_AS_TABLE, "", 2 * nlN},
		{"insertInto", pb.WriteOperation_SAVE_MODE_APPEND, pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_INSERT_INTO, "", 3 * nlN},
		{"insertInto overwrite", pb.WriteOperation_SAVE_MODE_OVERWRITE, pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_INSERT_INTO, "", nlN},
		{"saveAsTable overwrite", pb.WriteOperation_SAVE_MODE_OVERWRITE, pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_SAVE_AS_TABLE, "", nlN},
	}
	for _, s := range steps {
		err := saveAs(s.mode, s.meth)
		if s.class != "" {
			_, md := errorInfoOf(t, err)
			if md["errorClass"] != s.class {
				t.Errorf("%s: %v, want %s", s.what, err, s.class)
			}
		} else if err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		if got := count(); got != fmt.Sprintf("count(1)=%d", s.rows) {
			t.Errorf("%s: %s rows, want %d", s.what, got, s.rows)
		}
	}

	// parquet at a path: written, refused again by default, appended,
	// then read back.
	dir := filepath.Join(t.TempDir(), "nl.parquet")
	src := "parquet"
	path := func(mode pb.WriteOperation_SaveMode) error {
		return write(c, &pb.WriteOperation{Input: nl, Mode: mode, Source: &src, SaveType: &pb.WriteOperation_Path{Path: dir}})
	}
	if err := path(pb.WriteOperation_SAVE_MODE_UNSPECIFIED); err != nil {
		t.Fatal(err)
	}
	if _, md := errorInfoOf(t, path(pb.WriteOperation_SAVE_MODE_UNSPECIFIED)); md["errorClass"] != "PATH_ALREADY_EXISTS" {
		t.Errorf("second write: %v, want PATH_ALREADY_EXISTS", md)
	}
	if err := path(pb.WriteOperation_SAVE_MODE_APPEND); err != nil {
		t.Fatal(err)
	}
	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{Format: &src, Paths: []string{dir}}}}}}
	agg := &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{Input: read, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY,
		AggregateExpressions: []*pb.Expression{fn("count", lit(1))}}}}
	if got := strings.Join(c.rows(agg), ","); got != fmt.Sprintf("count(1)=%d", 2*nlN) {
		t.Errorf("parquet read back: %s rows, want %d", got, 2*nlN)
	}
	if err := path(pb.WriteOperation_SAVE_MODE_OVERWRITE); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.rows(agg), ","); got != fmt.Sprintf("count(1)=%d", nlN) {
		t.Errorf("parquet after overwrite: %s rows, want %d", got, nlN)
	}
}
