package parser

import (
	"strings"
	"testing"
	"time"
)

// stmtCases pairs SQL text with the tree it must parse to, written by hand.
var stmtCases = []struct {
	name string
	sql  string
	want Statement
}{
	{
		name: "scenario merge",
		sql:  "MERGE INTO lakehouse.silver.online_retail_cdc t USING updates s ON t.invoice = s.invoice AND t.stock_code = s.stock_code WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
		want: &Merge{
			Target: table("t", "lakehouse", "silver", "online_retail_cdc"),
			Source: table("s", "updates"),
			On:     and(eq(col("t", "invoice"), col("s", "invoice")), eq(col("t", "stock_code"), col("s", "stock_code"))),
			Clauses: []*MergeClause{
				{Match: WhenMatched, Action: UpdateAll},
				{Match: WhenNotMatched, Action: InsertAll},
			},
		},
	},
	{
		name: "scenario select with count as a column",
		sql:  "SELECT event, window_start, window_end, count FROM lakehouse.gold.event_windows ORDER BY window_start, event LIMIT 20",
		want: &Select{
			Items: []*SelectItem{item(col("event"), ""), item(col("window_start"), ""), item(col("window_end"), ""), item(col("count"), "")},
			From:  table("", "lakehouse", "gold", "event_windows"),
			OrderBy: []*OrderItem{
				{Expr: col("window_start")}, {Expr: col("event")},
			},
			Limit: ilit(20),
		},
	},
	{
		name: "with, union all, union and order by over the union",
		sql:  "WITH w AS (SELECT a FROM t), v AS (SELECT a FROM u WHERE a > 1) SELECT a FROM w UNION ALL SELECT a FROM v UNION SELECT 1 ORDER BY a DESC LIMIT 5",
		want: &Select{
			With: []*CTE{
				{Name: "w", Query: &Select{Items: []*SelectItem{item(col("a"), "")}, From: table("", "t")}},
				{Name: "v", Query: &Select{Items: []*SelectItem{item(col("a"), "")}, From: table("", "u"), Where: bin(">", col("a"), ilit(1))}},
			},
			Items: []*SelectItem{item(col("a"), "")},
			From:  table("", "w"),
			SetOps: []*SetOp{
				{All: true, Query: &Select{Items: []*SelectItem{item(col("a"), "")}, From: table("", "v")}},
				{Query: &Select{Items: []*SelectItem{item(ilit(1), "")}}},
			},
			OrderBy: []*OrderItem{{Expr: col("a"), Desc: true}},
			Limit:   ilit(5),
		},
	},
	{
		name: "a union branch with its own limit stays a subquery",
		sql:  "(SELECT a FROM t LIMIT 1) UNION ALL SELECT b FROM u",
		want: &Select{
			Items: []*SelectItem{item(&Star{}, "")},
			From:  &SubqueryRef{Query: &Select{Items: []*SelectItem{item(col("a"), "")}, From: table("", "t"), Limit: ilit(1)}},
			SetOps: []*SetOp{
				{All: true, Query: &Select{Items: []*SelectItem{item(col("b"), "")}, From: table("", "u")}},
			},
		},
	},
	{
		name: "distinct, case, count distinct and a subquery in FROM",
		sql:  "SELECT DISTINCT CASE WHEN x > 1 THEN 'big' ELSE 'small' END AS size, count(DISTINCT y) FROM (SELECT x, y FROM t) s GROUP BY size",
		want: &Select{
			Distinct: true,
			Items: []*SelectItem{
				item(&Case{Whens: []*When{{Cond: bin(">", col("x"), ilit(1)), Result: slit("big")}}, Else: slit("small")}, "size"),
				item(&Call{Name: "count", Args: []Expr{col("y")}, Distinct: true}, ""),
			},
			From:    &SubqueryRef{Query: &Select{Items: []*SelectItem{item(col("x"), ""), item(col("y"), "")}, From: table("", "t")}, Alias: "s"},
			GroupBy: []Expr{col("size")},
		},
	},
	{
		name: "merge with every clause kind, conditions, subquery source and AS",
		sql: `merge into lake.db.orders AS t
using (select id, amount, op from staged where amount > 0) AS s
on t.id = s.id
when matched and s.op = 'D' then delete
when matched then update set t.amount = s.amount, status = 'updated'
when not matched by target and s.op <> 'D' then insert (id, amount) values (s.id, s.amount * 2)
when not matched by source and t.amount < 10 then update set status = 'stale'
when not matched by source then delete;`,
		want: &Merge{
			Target: table("t", "lake", "db", "orders"),
			Source: &SubqueryRef{
				Query: &Select{
					Items: []*SelectItem{item(col("id"), ""), item(col("amount"), ""), item(col("op"), "")},
					From:  table("", "staged"),
					Where: bin(">", col("amount"), ilit(0)),
				},
				Alias: "s",
			},
			On: eq(col("t", "id"), col("s", "id")),
			Clauses: []*MergeClause{
				{Match: WhenMatched, Cond: eq(col("s", "op"), slit("D")), Action: DeleteRow},
				{Match: WhenMatched, Action: UpdateSet, Set: []*Assignment{
					{Column: col("t", "amount"), Value: col("s", "amount")},
					{Column: col("status"), Value: slit("updated")},
				}},
				{Match: WhenNotMatched, Cond: bin("<>", col("s", "op"), slit("D")), Action: InsertValues,
					Columns: []*ColumnRef{col("id"), col("amount")},
					Values:  []Expr{col("s", "id"), bin("*", col("s", "amount"), ilit(2))}},
				{Match: WhenNotMatchedBySource, Cond: bin("<", col("t", "amount"), ilit(10)), Action: UpdateSet,
					Set: []*Assignment{{Column: col("status"), Value: slit("stale")}}},
				{Match: WhenNotMatchedBySource, Action: DeleteRow},
			},
		},
	},
	{
		name: "create table with everything",
		sql: `CREATE TABLE IF NOT EXISTS lakehouse.silver.events (
  event_id string NOT NULL COMMENT 'unique id',
  ts timestamp,
  amount decimal(10, 2),
  tags array<string>,
  attrs map<string, int>,
  geo struct<lat: double, lon double>
) USING iceberg
PARTITIONED BY (days(ts), bucket(16, event_id), country, truncate(event_id, 4), hours(ts))
TBLPROPERTIES ('format-version' = '2', write.merge.mode = 'copy-on-write', 'x' 7)`,
		want: &CreateTable{
			IfNotExists: true,
			Name:        name("lakehouse", "silver", "events"),
			Columns: []*ColumnDef{
				{Name: "event_id", Type: "string", NotNull: true, Comment: "unique id"},
				{Name: "ts", Type: "timestamp"},
				{Name: "amount", Type: "decimal(10,2)"},
				{Name: "tags", Type: "array<string>"},
				{Name: "attrs", Type: "map<string,int>"},
				{Name: "geo", Type: "struct<lat:double,lon:double>"},
			},
			Provider: "iceberg",
			Partitioning: []*PartitionField{
				{Transform: "days", Column: "ts"},
				{Transform: "bucket", Column: "event_id", Width: 16},
				{Transform: "identity", Column: "country"},
				{Transform: "truncate", Column: "event_id", Width: 4},
				{Transform: "hours", Column: "ts"},
			},
			Properties: []*Property{
				{Key: "format-version", Value: "2"},
				{Key: "write.merge.mode", Value: "copy-on-write"},
				{Key: "x", Value: "7"},
			},
		},
	},
	{
		name: "create or replace table with keyword-named columns",
		sql:  "create or replace table ns.t (key binary, value binary, partition int, offset bigint, timestamp timestamp, date date, window struct<start: timestamp, end: timestamp>) using ICEBERG comment 'raw' location 's3://b/p'",
		want: &CreateTable{
			OrReplace: true,
			Name:      name("ns", "t"),
			Columns: []*ColumnDef{
				{Name: "key", Type: "binary"}, {Name: "value", Type: "binary"},
				{Name: "partition", Type: "int"}, {Name: "offset", Type: "bigint"},
				{Name: "timestamp", Type: "timestamp"}, {Name: "date", Type: "date"},
				{Name: "window", Type: "struct<start:timestamp,`end`:timestamp>"},
			},
			Provider: "ICEBERG",
			Comment:  "raw",
			Location: "s3://b/p",
		},
	},
	{
		name: "create table as select",
		sql:  "CREATE TABLE t USING iceberg AS SELECT a FROM s",
		want: &CreateTable{Name: name("t"), Provider: "iceberg",
			AsSelect: &Select{Items: []*SelectItem{item(col("a"), "")}, From: table("", "s")}},
	},
	{
		name: "drop table",
		sql:  "DROP TABLE IF EXISTS lakehouse.gold.event_windows",
		want: &DropTable{IfExists: true, Name: name("lakehouse", "gold", "event_windows")},
	},
	{
		name: "drop table purge",
		sql:  "drop table t purge;",
		want: &DropTable{Name: name("t"), Purge: true},
	},
	{
		name: "create namespace",
		sql:  "CREATE NAMESPACE IF NOT EXISTS lakehouse.silver",
		want: &CreateNamespace{IfNotExists: true, Name: name("lakehouse", "silver")},
	},
	{
		name: "create schema with properties",
		sql:  "CREATE SCHEMA s COMMENT 'c' WITH DBPROPERTIES ('owner' = 'me')",
		want: &CreateNamespace{Name: name("s"), Comment: "c", Properties: []*Property{{Key: "owner", Value: "me"}}},
	},
	{
		name: "create database",
		sql:  "create database gold",
		want: &CreateNamespace{Name: name("gold")},
	},
	{
		name: "drop namespace cascade",
		sql:  "DROP SCHEMA IF EXISTS lakehouse.tmp CASCADE",
		want: &DropNamespace{IfExists: true, Name: name("lakehouse", "tmp"), Cascade: true},
	},
	{
		name: "select without from",
		sql:  "SELECT 1",
		want: &Select{Items: []*SelectItem{item(ilit(1), "")}},
	},
	{
		name: "select with every clause",
		sql: `SELECT DISTINCT t.*, user_id AS u, count(*) n, sum(amount) AS total
FROM lakehouse.silver.orders AS t
WHERE country IN ('NL', 'BE') AND amount IS NOT NULL
GROUP BY user_id, country
HAVING count(*) > 1
ORDER BY total DESC NULLS LAST, u ASC NULLS FIRST, 3
LIMIT 10`,
		want: &Select{
			Distinct: true,
			Items: []*SelectItem{
				item(&Star{Qualifier: []string{"t"}}, ""),
				item(col("user_id"), "u"),
				item(&Call{Name: "count", Star: true}, "n"),
				item(call("sum", col("amount")), "total"),
			},
			From: table("t", "lakehouse", "silver", "orders"),
			Where: and(
				&In{X: col("country"), List: []Expr{slit("NL"), slit("BE")}},
				&IsNull{X: col("amount"), Not: true}),
			GroupBy: []Expr{col("user_id"), col("country")},
			Having:  bin(">", &Call{Name: "count", Star: true}, ilit(1)),
			OrderBy: []*OrderItem{
				{Expr: col("total"), Desc: true, Nulls: NullsLast},
				{Expr: col("u"), Nulls: NullsFirst},
				{Expr: ilit(3)},
			},
			Limit: ilit(10),
		},
	},
	{
		name: "select star from subquery with alias and window struct fields",
		sql:  "select * from (select window.start, window.end, `count` from v) w where w.`end` > 5",
		want: &Select{
			Items: []*SelectItem{item(&Star{}, "")},
			From: &SubqueryRef{Query: &Select{
				Items: []*SelectItem{item(col("window", "start"), ""), item(col("window", "end"), ""), item(col("count"), "")},
				From:  table("", "v"),
			}, Alias: "w"},
			Where: bin(">", col("w", "end"), ilit(5)),
		},
	},
	{
		name: "joins",
		sql:  "SELECT a.x FROM a JOIN b ON a.id = b.id LEFT OUTER JOIN c USING (id, k) CROSS JOIN d, e",
		want: &Select{
			Items: []*SelectItem{item(col("a", "x"), "")},
			From: &Join{Type: CrossJoin, Comma: true,
				Left: &Join{Type: CrossJoin,
					Left: &Join{Type: LeftJoin,
						Left:  &Join{Type: InnerJoin, Left: table("", "a"), Right: table("", "b"), On: eq(col("a", "id"), col("b", "id"))},
						Right: table("", "c"), Using: []string{"id", "k"}},
					Right: table("", "d")},
				Right: table("", "e")},
		},
	},
	{
		name: "time travel",
		sql:  "SELECT * FROM lakehouse.silver.t VERSION AS OF 8109744798576441359 v JOIN t2 FOR SYSTEM_TIME AS OF TIMESTAMP '2026-11-30 10:00:00' - INTERVAL 1 HOUR ON v.id = t2.id",
		want: &Select{
			Items: []*SelectItem{item(&Star{}, "")},
			From: &Join{Type: InnerJoin,
				Left: &TableRef{Name: name("lakehouse", "silver", "t"), Alias: "v",
					Version: &Literal{Kind: BigIntLiteral, Value: int64(8109744798576441359), Text: "8109744798576441359"}},
				Right: &TableRef{Name: name("t2"), Timestamp: bin("-",
					&Literal{Kind: TimestampLiteral, Value: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)},
					&Literal{Kind: IntervalLiteral, Value: time.Hour})},
				On: eq(col("v", "id"), col("t2", "id"))},
		},
	},
	{
		name: "metadata table and a table named version",
		sql:  "SELECT snapshot_id FROM lakehouse.silver.t.snapshots, version",
		want: &Select{
			Items: []*SelectItem{item(col("snapshot_id"), "")},
			From:  &Join{Type: CrossJoin, Comma: true, Left: table("", "lakehouse", "silver", "t", "snapshots"), Right: table("", "version")},
		},
	},
	{
		name: "call with named arguments",
		sql:  "CALL lakehouse.system.expire_snapshots(table => 'gold.event_windows', older_than => TIMESTAMP '2026-11-30 10:00:00', retain_last => 1)",
		want: &CallProcedure{Procedure: name("lakehouse", "system", "expire_snapshots"), Args: []ProcedureArg{
			{Name: "table", Value: slit("gold.event_windows")},
			{Name: "older_than", Value: &Literal{Kind: TimestampLiteral, Value: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}},
			{Name: "retain_last", Value: ilit(1)},
		}},
	},
	{
		name: "call positional then named",
		sql:  "call system.rewrite_data_files('silver.orders', target_rows => 1000)",
		want: &CallProcedure{Procedure: name("system", "rewrite_data_files"), Args: []ProcedureArg{
			{Value: slit("silver.orders")},
			{Name: "target_rows", Value: ilit(1000)},
		}},
	},
	{
		name: "call without arguments",
		sql:  "CALL system.nothing()",
		want: &CallProcedure{Procedure: name("system", "nothing")},
	},
	{
		name: "show tables",
		sql:  "SHOW TABLES",
		want: &ShowTables{},
	},
	{
		name: "show tables in namespace like",
		sql:  "show tables in lakehouse.silver like 'ev*'",
		want: &ShowTables{Namespace: name("lakehouse", "silver"), Pattern: "ev*"},
	},
	{
		name: "show tables from",
		sql:  "SHOW TABLES FROM gold",
		want: &ShowTables{Namespace: name("gold")},
	},
	{
		name: "show namespaces",
		sql:  "SHOW NAMESPACES",
		want: &ShowNamespaces{},
	},
	{
		name: "show databases in",
		sql:  "SHOW DATABASES IN lakehouse",
		want: &ShowNamespaces{Parent: name("lakehouse")},
	},
	{
		name: "describe",
		sql:  "DESCRIBE lakehouse.gold.event_windows",
		want: &Describe{Name: name("lakehouse", "gold", "event_windows")},
	},
	{
		name: "describe table extended",
		sql:  "DESC TABLE EXTENDED t",
		want: &Describe{Extended: true, Name: name("t")},
	},
	{
		name: "describe history",
		sql:  "DESCRIBE HISTORY lakehouse.silver.orders",
		want: &Describe{Kind: DescribeHistory, Name: name("lakehouse", "silver", "orders")},
	},
	{
		name: "describe a table named history",
		sql:  "DESCRIBE history",
		want: &Describe{Name: name("history")},
	},
	{
		name: "insert values",
		sql:  "INSERT INTO lakehouse.bronze.t (id, name, ts) VALUES (1, 'a', TIMESTAMP '2026-11-30 10:00:00'), (2, NULL, NULL)",
		want: &Insert{
			Table:   name("lakehouse", "bronze", "t"),
			Columns: []*ColumnRef{col("id"), col("name"), col("ts")},
			Rows: [][]Expr{
				{ilit(1), slit("a"), &Literal{Kind: TimestampLiteral, Value: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}},
				{ilit(2), &Literal{Kind: NullLiteral}, &Literal{Kind: NullLiteral}},
			},
		},
	},
	{
		name: "insert select",
		sql:  "INSERT INTO TABLE t SELECT * FROM s WHERE x = 1",
		want: &Insert{Table: name("t"), Query: &Select{
			Items: []*SelectItem{item(&Star{}, "")}, From: table("", "s"), Where: eq(col("x"), ilit(1))}},
	},
	{
		name: "insert overwrite parenthesised select",
		sql:  "INSERT OVERWRITE t (SELECT 1)",
		want: &Insert{Table: name("t"), Overwrite: true, Query: &Select{Items: []*SelectItem{item(ilit(1), "")}}},
	},
	{
		name: "delete",
		sql:  "DELETE FROM lakehouse.silver.orders WHERE status = 'cancelled'",
		want: &Delete{Table: table("", "lakehouse", "silver", "orders"), Where: eq(col("status"), slit("cancelled"))},
	},
	{
		name: "delete all",
		sql:  "delete from t",
		want: &Delete{Table: table("", "t")},
	},
	{
		name: "update with alias",
		sql:  "UPDATE orders o SET o.amount = o.amount + 1, note = 'x' WHERE o.id = 7",
		want: &Update{
			Table: table("o", "orders"),
			Set: []*Assignment{
				{Column: col("o", "amount"), Value: bin("+", col("o", "amount"), ilit(1))},
				{Column: col("note"), Value: slit("x")},
			},
			Where: eq(col("o", "id"), ilit(7)),
		},
	},
	{
		name: "update without alias",
		sql:  "UPDATE t SET a = 1",
		want: &Update{Table: table("", "t"), Set: []*Assignment{{Column: col("a"), Value: ilit(1)}}},
	},
	{
		name: "comments, case and a trailing semicolon",
		sql:  "-- leading comment\nsElEcT /* inline /* nested */ */ A -- trailing\nfrom T;",
		want: &Select{Items: []*SelectItem{item(col("A"), "")}, From: table("", "T")},
	},
}

func TestParseStatements(t *testing.T) {
	for _, tc := range stmtCases {
		t.Run(tc.name, func(t *testing.T) {
			got := mustParse(t, tc.sql)
			if !sameTree(got, tc.want) {
				t.Fatalf("Parse(%q)\n got: %s\nwant: %s", tc.sql, dump(got), dump(tc.want))
			}
		})
	}
}

// TestStatementStringRoundTrip checks that String renders SQL that parses
// back to the same tree, for every statement form.
func TestStatementStringRoundTrip(t *testing.T) {
	for _, tc := range stmtCases {
		t.Run(tc.name, func(t *testing.T) {
			first := mustParse(t, tc.sql)
			text := first.String()
			again, err := Parse(text)
			if err != nil {
				t.Fatalf("Parse(String()) of %q: %v\nString(): %s", tc.sql, err, text)
			}
			if !sameTree(again, first) {
				t.Fatalf("round trip changed the tree\nString(): %s\n got: %s\nwant: %s", text, dump(again), dump(first))
			}
			if again.String() != text {
				t.Fatalf("String() is not stable: %q then %q", text, again.String())
			}
		})
	}
}

func TestScenarioStatementText(t *testing.T) {
	cases := map[string]string{
		"MERGE INTO lakehouse.silver.online_retail_cdc t USING updates s ON t.invoice = s.invoice AND t.stock_code = s.stock_code WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *": "MERGE INTO lakehouse.silver.online_retail_cdc AS t USING updates AS s ON ((t.invoice = s.invoice) AND (t.stock_code = s.stock_code)) WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
		"SELECT event, window_start, window_end, count FROM lakehouse.gold.event_windows ORDER BY window_start, event LIMIT 20":                                                                  "SELECT event, window_start, window_end, count FROM lakehouse.gold.event_windows ORDER BY window_start, event LIMIT 20",
		"create table t (`select` int, `a b` string) using iceberg partitioned by (`select`)":                                                                                                    "CREATE TABLE t (`select` int, `a b` string) USING iceberg PARTITIONED BY (`select`)",
	}
	for in, want := range cases {
		if got := mustParse(t, in).String(); got != want {
			t.Errorf("String() of %q\n got: %s\nwant: %s", in, got, want)
		}
	}
}

func TestParseScript(t *testing.T) {
	script := `
CREATE NAMESPACE IF NOT EXISTS lakehouse.silver;
;
-- a comment between statements
DROP TABLE IF EXISTS lakehouse.silver.t;
SELECT 1; SELECT 'a;b'
`
	stmts, err := ParseScript(script)
	if err != nil {
		t.Fatal(err)
	}
	want := []Statement{
		&CreateNamespace{IfNotExists: true, Name: name("lakehouse", "silver")},
		&DropTable{IfExists: true, Name: name("lakehouse", "silver", "t")},
		&Select{Items: []*SelectItem{item(ilit(1), "")}},
		&Select{Items: []*SelectItem{item(slit("a;b"), "")}},
	}
	if len(stmts) != len(want) {
		t.Fatalf("got %d statements, want %d: %s", len(stmts), len(want), dump(stmts))
	}
	if want := (Position{Line: 5, Col: 1, Offset: strings.Index(script, "DROP")}); stmts[1].Pos() != want {
		t.Errorf("DROP TABLE at %+v, want %+v", stmts[1].Pos(), want)
	}
	if want := (Position{Line: 6, Col: 11, Offset: strings.Index(script, "SELECT 'a")}); stmts[3].Pos() != want {
		t.Errorf("second SELECT at %+v, want %+v", stmts[3].Pos(), want)
	}
	for i := range want {
		if !sameTree(stmts[i], want[i]) {
			t.Errorf("statement %d\n got: %s\nwant: %s", i, dump(stmts[i]), dump(want[i]))
		}
	}

	empty, err := ParseScript(" ; -- nothing\n;")
	if err != nil || len(empty) != 0 {
		t.Fatalf("empty script: %v, %d statements", err, len(empty))
	}
}

func TestParseRejectsSeveralStatements(t *testing.T) {
	_, err := Parse("SELECT 1; SELECT 2")
	perr, ok := err.(*Error)
	if !ok {
		t.Fatalf("Parse of two statements: %v, want *Error", err)
	}
	if perr.Line != 1 || perr.Col != 11 || perr.Hint == "" {
		t.Fatalf("error %+v, want line 1 column 11 with a hint", perr)
	}
}
