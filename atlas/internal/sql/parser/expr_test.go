package parser

import (
	"math"
	"testing"
	"time"
)

// TestPrecedence checks grouping through SQL(), which parenthesises every
// operation, against groupings written by hand from Spark's grammar.
func TestPrecedence(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a OR b AND c", "(a OR (b AND c))"},
		{"a AND b OR c", "((a AND b) OR c)"},
		{"NOT a = b", "(NOT (a = b))"},
		{"NOT a AND b", "((NOT a) AND b)"},
		{"NOT NOT a", "(NOT (NOT a))"},
		{"-x * y", "((- x) * y)"},
		{"-x.y * 2", "((- x.y) * 2)"},
		{"a || b = c", "((a || b) = c)"},
		{"a + b * c - d / e % f", "((a + (b * c)) - ((d / e) % f))"},
		{"a = b AND c <> d OR e != f", "(((a = b) AND (c <> d)) OR (e <> f))"},
		{"a == 1", "(a = 1)"},
		{"a <=> NULL", "(a <=> NULL)"},
		{"a < b = c", "((a < b) = c)"},
		{"a + 1 BETWEEN 2 AND 3 AND b", "(((a + 1) BETWEEN 2 AND 3) AND b)"},
		{"x NOT BETWEEN lo AND hi", "(x NOT BETWEEN lo AND hi)"},
		{"x NOT IN (1, 2) OR y IN ('a')", "((x NOT IN (1, 2)) OR (y IN ('a')))"},
		{"name NOT LIKE 'a%' AND name ILIKE 'B%'", "((name NOT LIKE 'a%') AND (name ILIKE 'B%'))"},
		{"s RLIKE '^a' OR s REGEXP 'b'", "((s RLIKE '^a') OR (s RLIKE 'b'))"},
		{"a + b IS NOT NULL", "((a + b) IS NOT NULL)"},
		{"NOT a IS NULL", "(NOT (a IS NULL))"},
		{"a & b | c ^ d", "((a & b) | (c ^ d))"},
		{"a - -1", "(a - -1)"},
		{"- (5)", "(- (5))"},
		{"- - 5", "(- (-5))"},
		{"(a + b) * c", "((a + b) * c)"},
		{"a.b.c + `x y`", "(a.b.c + `x y`)"},
		{"~a + 1", "((~a) + 1)"},
	}
	for _, tc := range cases {
		e := mustExpr(t, tc.in)
		if got := e.SQL(); got != tc.want {
			t.Errorf("ParseExpr(%q).SQL() = %s, want %s", tc.in, got, tc.want)
		}
		again := mustExpr(t, e.SQL())
		if !sameTree(again, e) {
			t.Errorf("SQL() of %q does not parse back to the same tree: %s", tc.in, dump(again))
		}
	}
	// One tree by hand, positions included.
	got := mustExpr(t, "a OR b AND c")
	want := &Binary{Op: "OR", L: &ColumnRef{Parts: []string{"a"}, At: Position{1, 1, 0}},
		R: &Binary{Op: "AND",
			L:    &ColumnRef{Parts: []string{"b"}, At: Position{1, 6, 5}},
			R:    &ColumnRef{Parts: []string{"c"}, At: Position{1, 12, 11}},
			OpAt: Position{1, 8, 7}, At: Position{1, 6, 5}},
		OpAt: Position{1, 3, 2}, At: Position{1, 1, 0}}
	if dump(got) != dump(want) {
		t.Fatalf("a OR b AND c\n got: %s\nwant: %s", dump(got), dump(want))
	}
}

func TestLiterals(t *testing.T) {
	cases := []struct {
		in   string
		kind LiteralKind
		val  any
	}{
		{"42", IntLiteral, int64(42)},
		{"-2147483648", IntLiteral, int64(math.MinInt32)},
		{"2147483648", BigIntLiteral, int64(2147483648)},
		{"10L", BigIntLiteral, int64(10)},
		{"-9223372036854775808L", BigIntLiteral, int64(math.MinInt64)},
		{"7S", SmallIntLiteral, int64(7)},
		{"7y", TinyIntLiteral, int64(7)},
		{"1.5", DecimalLiteral, 1.5},
		{".5", DecimalLiteral, 0.5},
		{"2BD", DecimalLiteral, 2.0},
		{"99999999999999999999", DecimalLiteral, 1e20},
		{"1e3", DoubleLiteral, 1000.0},
		{"1.5E-2", DoubleLiteral, 0.015},
		{"1.5D", DoubleLiteral, 1.5},
		{"2f", FloatLiteral, 2.0},
		{"'it''s'", StringLiteral, "it's"},
		{`'it\'s'`, StringLiteral, "it's"},
		{`"double \"quoted\""`, StringLiteral, `double "quoted"`},
		{`'a\tb\nc\\d\%\u00e9'`, StringLiteral, "a\tb\nc\\d\\%\u00e9"},
		{"'con' 'cat'", StringLiteral, "concat"},
		{"TRUE", BoolLiteral, true},
		{"false", BoolLiteral, false},
		{"NULL", NullLiteral, nil},
		{"TIMESTAMP '2026-11-30 10:00:00'", TimestampLiteral, time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)},
		{"timestamp '2026-11-30T10:00:00.25'", TimestampLiteral, time.Date(2026, 11, 30, 10, 0, 0, 250e6, time.UTC)},
		{"TIMESTAMP '2026-11-30 10:00:00+02:00'", TimestampLiteral, time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)},
		{"TIMESTAMP '2026-11-30'", TimestampLiteral, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)},
		{"DATE '2026-11-30'", DateLiteral, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)},
		{"INTERVAL '5' MINUTES", IntervalLiteral, 5 * time.Minute},
		{"INTERVAL 5 MINUTES", IntervalLiteral, 5 * time.Minute},
		{"interval 10 second", IntervalLiteral, 10 * time.Second},
		{"INTERVAL '1 hour 30 minutes'", IntervalLiteral, 90 * time.Minute},
		{"INTERVAL 1 HOUR 30 MINUTES", IntervalLiteral, 90 * time.Minute},
		{"INTERVAL '1.5' SECONDS", IntervalLiteral, 1500 * time.Millisecond},
		{"INTERVAL '-2' DAYS", IntervalLiteral, -48 * time.Hour},
		{"INTERVAL 1 WEEK", IntervalLiteral, 7 * 24 * time.Hour},
		{"INTERVAL '0 00:10:00' DAY TO SECOND", IntervalLiteral, 10 * time.Minute},
		{"INTERVAL '-1 01:02:03.5' DAY TO SECOND", IntervalLiteral, -(25*time.Hour + 2*time.Minute + 3500*time.Millisecond)},
		{"INTERVAL '2 03' DAY TO HOUR", IntervalLiteral, 51 * time.Hour},
		{"INTERVAL '1:30' HOUR TO MINUTE", IntervalLiteral, 90 * time.Minute},
		{"INTERVAL '10:00.25' MINUTE TO SECOND", IntervalLiteral, 10*time.Minute + 250*time.Millisecond},
		{"INTERVAL 250 MILLISECONDS", IntervalLiteral, 250 * time.Millisecond},
	}
	for _, tc := range cases {
		e := mustExpr(t, tc.in)
		lit, ok := e.(*Literal)
		if !ok {
			t.Errorf("%s parsed to %T, want *Literal", tc.in, e)
			continue
		}
		if lit.Kind != tc.kind {
			t.Errorf("%s: kind %v, want %v", tc.in, lit.Kind, tc.kind)
		}
		if want, ok := tc.val.(time.Time); ok {
			got, _ := lit.Value.(time.Time)
			if !got.Equal(want) || got.Location() != time.UTC {
				t.Errorf("%s: value %v, want %v in UTC", tc.in, lit.Value, want)
			}
		} else if lit.Value != tc.val {
			t.Errorf("%s: value %#v, want %#v", tc.in, lit.Value, tc.val)
		}
		again := mustExpr(t, lit.SQL())
		if !sameTree(again, lit) {
			t.Errorf("%s: SQL() %s parses to %s", tc.in, lit.SQL(), dump(again))
		}
	}
	if lit := mustExpr(t, "123.4500").(*Literal); lit.Text != "123.4500" {
		t.Errorf("decimal text %q, want the digits as written", lit.Text)
	}
}

// TestSparkNames checks String(), the auto column names, against names
// Spark gives the same expressions.
func TestSparkNames(t *testing.T) {
	cases := []struct{ in, want string }{
		{"count(*)", "count(1)"},
		{"count(1)", "count(1)"},
		{"COUNT(DISTINCT user_id)", "count(DISTINCT user_id)"},
		{"sum(x)", "sum(x)"},
		{"SUM(t.amount)", "sum(amount)"},
		{"t.a", "a"},
		{"a + 1", "(a + 1)"},
		{"a || b", "concat(a, b)"},
		{"a != b", "(NOT (a = b))"},
		{"-x", "(- x)"},
		{"-1", "-1"},
		{"x BETWEEN 1 AND 2", "between(x, 1, 2)"},
		{"x IN (1, 2)", "(x IN (1, 2))"},
		{"x NOT IN (1, 2)", "(NOT (x IN (1, 2)))"},
		{"x IS NOT NULL", "(x IS NOT NULL)"},
		{"cast(x as integer)", "CAST(x AS INT)"},
		{"CAST(x AS decimal(10,2))", "CAST(x AS DECIMAL(10,2))"},
		{"upper('abc')", "upper(abc)"},
		{"CASE status WHEN 'a' THEN 1 ELSE 0 END", "CASE WHEN (status = a) THEN 1 ELSE 0 END"},
		{"1e3", "1000.0"},
		{"10L", "10"},
		{"TRUE", "true"},
		{"TIMESTAMP '2026-11-30 10:00:00'", "TIMESTAMP '2026-11-30 10:00:00'"},
		{"window(ts, '5 minutes')", "window(ts, 5 minutes)"},
		{"current_timestamp", "current_timestamp()"},
	}
	for _, tc := range cases {
		if got := mustExpr(t, tc.in).String(); got != tc.want {
			t.Errorf("ParseExpr(%q).String() = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestKeywordsAsIdentifiers checks that Spark's non-reserved words name
// columns wherever that is unambiguous.
func TestKeywordsAsIdentifiers(t *testing.T) {
	for _, w := range []string{"count", "window", "start", "end", "event", "timestamp", "date", "key", "value", "partition", "offset", "table", "interval", "history", "topic", "first", "last", "nulls"} {
		sql := "SELECT " + w + ", t." + w + " AS " + w + " FROM t " + w + " WHERE " + w + " > 0 ORDER BY " + w
		s, err := Parse(sql)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		want := &Select{
			Items:   []*SelectItem{item(col(w), ""), item(col("t", w), w)},
			From:    table(w, "t"),
			Where:   bin(">", col(w), ilit(0)),
			OrderBy: []*OrderItem{{Expr: col(w)}},
		}
		if !sameTree(s, want) {
			t.Errorf("%s\n got: %s\nwant: %s", sql, dump(s), dump(want))
		}
	}
	// Reserved words work after a dot and in backticks.
	e := mustExpr(t, "t.order + `select`")
	if !sameTree(e, bin("+", col("t", "order"), col("select"))) {
		t.Errorf("reserved words as names: %s", dump(e))
	}
	// Keywords that start literals are names when no literal follows.
	e = mustExpr(t, "timestamp > date AND interval - 1 = 0")
	want := and(bin(">", col("timestamp"), col("date")), eq(bin("-", col("interval"), ilit(1)), ilit(0)))
	if !sameTree(e, want) {
		t.Errorf("timestamp/date/interval as columns: %s", dump(e))
	}
}

func TestExpressionForms(t *testing.T) {
	cases := []struct {
		in   string
		want Expr
	}{
		{"CASE WHEN a > 1 THEN 'big' WHEN a > 0 THEN 'small' END", &Case{Whens: []*When{
			{Cond: bin(">", col("a"), ilit(1)), Result: slit("big")},
			{Cond: bin(">", col("a"), ilit(0)), Result: slit("small")},
		}}},
		{"case x when 1 then true else false end", &Case{Operand: col("x"),
			Whens: []*When{{Cond: ilit(1), Result: &Literal{Kind: BoolLiteral, Value: true}}},
			Else:  &Literal{Kind: BoolLiteral, Value: false}}},
		{"CAST(ts AS timestamp)", &Cast{X: col("ts"), Type: "timestamp"}},
		{"try_cast(v AS ARRAY<Struct<A: INT>>)", &Cast{X: col("v"), Type: "array<struct<A:int>>", Try: true}},
		{"count(*)", &Call{Name: "count", Star: true}},
		{"count(DISTINCT a, b)", &Call{Name: "count", Distinct: true, Args: []Expr{col("a"), col("b")}}},
		{"now()", &Call{Name: "now"}},
		{"coalesce(a, 0) + `f`(1)", bin("+", call("coalesce", col("a"), ilit(0)), call("f", ilit(1)))},
		{"left(s, 3)", call("left", col("s"), ilit(3))},
		{"x BETWEEN 1 AND 2", &Between{X: col("x"), Low: ilit(1), High: ilit(2)}},
		{"x LIKE 'a%'", &Like{Op: "LIKE", X: col("x"), Pattern: slit("a%")}},
		{"x IS NULL", &IsNull{X: col("x")}},
		{"window(timestamp, '10 minutes', '5 minutes')", call("window", col("timestamp"), slit("10 minutes"), slit("5 minutes"))},
		{"from_json(CAST(value AS STRING), 'a int')", call("from_json", &Cast{X: col("value"), Type: "string"}, slit("a int"))},
		{"ts >= current_timestamp() - INTERVAL 1 HOUR", bin(">=", col("ts"), bin("-", call("current_timestamp"),
			&Literal{Kind: IntervalLiteral, Value: time.Hour}))},
	}
	for _, tc := range cases {
		got := mustExpr(t, tc.in)
		if !sameTree(got, tc.want) {
			t.Errorf("ParseExpr(%q)\n got: %s\nwant: %s", tc.in, dump(got), dump(tc.want))
		}
	}
}

func TestParseSelectItem(t *testing.T) {
	cases := []struct {
		in   string
		want *SelectItem
	}{
		{"count(*) AS n", item(&Call{Name: "count", Star: true}, "n")},
		{"amount * 2 doubled", item(bin("*", col("amount"), ilit(2)), "doubled")},
		{"*", item(&Star{}, "")},
		{"s.*", item(&Star{Qualifier: []string{"s"}}, "")},
		{"`my t`.*", item(&Star{Qualifier: []string{"my t"}}, "")},
		{"window.start AS `start`", item(col("window", "start"), "start")},
	}
	for _, tc := range cases {
		got, err := ParseSelectItem(tc.in)
		if err != nil {
			t.Errorf("ParseSelectItem(%q): %v", tc.in, err)
			continue
		}
		if !sameTree(got, tc.want) {
			t.Errorf("ParseSelectItem(%q)\n got: %s\nwant: %s", tc.in, dump(got), dump(tc.want))
		}
	}
}

func TestPositions(t *testing.T) {
	sql := "SELECT a,\n  sum(b) AS s\nFROM t\nWHERE x = 'é' AND y"
	s := mustParse(t, sql).(*Select)
	checks := []struct {
		what string
		got  Position
		line int
		col  int
		sub  string
	}{
		{"select", s.Pos(), 1, 1, "SELECT"},
		{"item a", s.Items[0].Pos(), 1, 8, "a,"},
		{"sum", s.Items[1].Expr.Pos(), 2, 3, "sum"},
		{"sum arg", s.Items[1].Expr.(*Call).Args[0].Pos(), 2, 7, "b)"},
		{"from", s.From.Pos(), 3, 6, "t\n"},
		{"where and", s.Where.(*Binary).OpAt, 4, 15, "AND"},
		{"where y", s.Where.(*Binary).R.Pos(), 4, 19, "y"},
	}
	for _, c := range checks {
		if c.got.Line != c.line || c.got.Col != c.col {
			t.Errorf("%s at line %d, column %d; want line %d, column %d", c.what, c.got.Line, c.got.Col, c.line, c.col)
		}
		if len(sql) < c.got.Offset+len(c.sub) || sql[c.got.Offset:c.got.Offset+len(c.sub)] != c.sub {
			t.Errorf("%s: offset %d does not point at %q", c.what, c.got.Offset, c.sub)
		}
	}
}
