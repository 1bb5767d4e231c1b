package server

import (
	"context"
	"strings"
	"testing"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// trySQL runs spark.sql(query) and returns the error of the command.
func (c *client) trySQL(query string) error {
	_, err := c.execute(&pb.Plan{OpType: &pb.Plan_Command{Command: &pb.Command{
		CommandType: &pb.Command_SqlCommand{SqlCommand: &pb.SqlCommand{Input: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: query}}}}},
	}}})
	return err
}

// confGet reads one setting as spark.conf.get does.
func (c *client) confGet(key string) string {
	c.t.Helper()
	resp, err := c.rpc.Config(context.Background(), &pb.ConfigRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
		Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Get{Get: &pb.ConfigRequest_Get{Keys: []string{key}}}}})
	if err != nil {
		c.t.Fatalf("conf get %s: %v", key, err)
	}
	return resp.GetPairs()[0].GetValue()
}

// TestSQLSetReachesSessionConf: SET key=value, SET key and RESET are the
// statements of spark.conf.set/get/unset, with Spark's key/value rows
// (SetCommand) and its refusals.
func TestSQLSetReachesSessionConf(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := dial(t, srv.Addr())
	const key = "spark.sql.streaming.multipleWatermarkPolicy"

	same(t, "SET k=v", c.rows(c.sql("SET "+key+" = max ;")), []string{"key=" + key + " value=max"})
	if got := c.confGet(key); got != "max" {
		t.Fatalf("spark.conf.get after SET: %q, want max", got)
	}
	same(t, "SET k", c.rows(c.sql("set "+key)), []string{"key=" + key + " value=max"})
	same(t, "SET unknown", c.rows(c.sql("SET my.own.key")), []string{"key=my.own.key value=<undefined>"})
	same(t, "SET quoted", c.rows(c.sql("SET `my own key`=`a;b`")), []string{"key=my own key value=a;b"})
	same(t, "SET lists", c.rows(c.sql("SET")), []string{"key=" + key + " value=max", "key=my own key value=a;b"})

	c.rows(c.sql("RESET " + key))
	if got := c.confGet(key); got != "min" {
		t.Fatalf("spark.conf.get after RESET key: %q, want the default min", got)
	}
	c.rows(c.sql("RESET"))
	same(t, "SET after RESET", c.rows(c.sql("SET")), nil)

	for query, want := range map[string]string{
		"SET " + key + "=median":                          "should be one of min, max",
		"SET spark.sql.parser.escapedStringLiterals=true": "escapedStringLiterals=true is not supported",
		"SET " + ConfMaxPlanNodes + "=5":                  "CANNOT_MODIFY_STATIC_CONFIG",
		"SET a b = c":                                     "INVALID_SET_SYNTAX",
	} {
		if err := c.trySQL(query); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", query, err, want)
		}
	}
	same(t, "escapedStringLiterals=false", c.rows(c.sql("SET spark.sql.parser.escapedStringLiterals=false")),
		[]string{"key=spark.sql.parser.escapedStringLiterals value=false"})
}
