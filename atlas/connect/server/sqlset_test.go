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

// TestSessionTimeZoneSetting: spark.sql.session.timeZone set by SET or
// spark.conf.set is the zone of the session's next queries; RESET goes
// back to UTC; a value that names no zone is refused with Spark's
// INVALID_CONF_VALUE.TIME_ZONE. 02:30 on 2021-03-14 does not exist in Los
// Angeles: Spark reads it as 03:30 PDT.
func TestSessionTimeZoneSetting(t *testing.T) {
	srv := startServer(t, t.TempDir())
	c := dial(t, srv.Addr())
	const query = "SELECT CAST(TIMESTAMP '2021-03-14 02:30:00' AS STRING) AS s, CAST(TIMESTAMP '2021-03-14 02:30:00' AS BIGINT) AS e"
	same(t, "UTC", c.rows(c.sql(query)), []string{"s=2021-03-14 02:30:00 e=1615689000"})

	same(t, "SET zone", c.rows(c.sql("SET spark.sql.session.timeZone=America/Los_Angeles")),
		[]string{"key=spark.sql.session.timeZone value=America/Los_Angeles"})
	if got := c.confGet("spark.sql.session.timeZone"); got != "America/Los_Angeles" {
		t.Fatalf("spark.conf.get: %q", got)
	}
	same(t, "Los Angeles", c.rows(c.sql(query)), []string{"s=2021-03-14 03:30:00 e=1615717800"})

	zone := "+05:30"
	if _, err := c.rpc.Config(context.Background(), &pb.ConfigRequest{SessionId: c.session, UserContext: &pb.UserContext{UserId: "test"},
		Operation: &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{Set: &pb.ConfigRequest_Set{Pairs: []*pb.KeyValue{{Key: "spark.sql.session.timeZone", Value: &zone}}}}}}); err != nil {
		t.Fatal(err)
	}
	same(t, "+05:30 by spark.conf.set", c.rows(c.sql(query)), []string{"s=2021-03-14 02:30:00 e=1615669200"})

	same(t, "SET TIME ZONE", c.rows(c.sql("SET TIME ZONE 'UTC'")), []string{"key=spark.sql.session.timeZone value=UTC"})
	c.rows(c.sql("SET TIME ZONE 'Asia/Tokyo'"))
	c.rows(c.sql("RESET spark.sql.session.timeZone"))
	same(t, "after RESET", c.rows(c.sql(query)), []string{"s=2021-03-14 02:30:00 e=1615689000"})

	for _, bad := range []string{"Mars/Olympus_Mons", "Local", "+25:00", ""} {
		err := c.trySQL("SET spark.sql.session.timeZone=" + bad)
		if err == nil || !strings.Contains(err.Error(), "INVALID_CONF_VALUE.TIME_ZONE") {
			t.Errorf("zone %q: %v, want INVALID_CONF_VALUE.TIME_ZONE", bad, err)
		}
	}
}
