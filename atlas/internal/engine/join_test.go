package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// joinRow is one input row of the batch join tests: a nullable int key, a
// nullable string key and a value.
type joinRow struct {
	k   *int64
	s   *string
	val int64
}

func randomJoinRows(rng *rand.Rand, n int) []joinRow {
	out := make([]joinRow, n)
	for i := range out {
		r := joinRow{val: int64(rng.Intn(20))}
		if rng.Intn(6) > 0 {
			k := int64(rng.Intn(5))
			r.k = &k
		}
		if rng.Intn(5) > 0 {
			s := string(rune('a' + rng.Intn(3)))
			r.s = &s
		}
		out[i] = r
	}
	return out
}

// joinFrame builds a DataFrame with columns <prefix>k, <prefix>s, <prefix>v.
func joinFrame(t *testing.T, s *engine.Session, names [3]string, rows []joinRow) *engine.DataFrame {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: names[0], Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: names[1], Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: names[2], Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		if r.k == nil {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(*r.k)
		}
		if r.s == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(*r.s)
		}
		b.Field(2).(*array.Int64Builder).Append(r.val)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	df := s.CreateDataFrame(schema, []arrow.RecordBatch{rec})
	if err := df.Err(); err != nil {
		t.Fatal(err)
	}
	return df
}

func cell(v any) string {
	if v == nil {
		return "null"
	}
	if p, ok := v.(*int64); ok {
		if p == nil {
			return "null"
		}
		return fmt.Sprint(*p)
	}
	if p, ok := v.(*string); ok {
		if p == nil {
			return "null"
		}
		return *p
	}
	return fmt.Sprint(v)
}

// collectLines runs df and renders each row positionally ("1|a|3"),
// sorted: duplicate column names of a join stay apart.
func collectLines(t *testing.T, df *engine.DataFrame) []string {
	t.Helper()
	schema, recs, err := df.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			parts := make([]string, schema.NumFields())
			for c := range parts {
				col := r.Column(c)
				switch {
				case col.IsNull(i):
					parts[c] = "null"
				default:
					parts[c] = col.ValueStr(i)
				}
			}
			out = append(out, strings.Join(parts, "|"))
		}
		r.Release()
	}
	sort.Strings(out)
	return out
}

func rowLine(cells ...any) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = cell(c)
	}
	return strings.Join(parts, "|")
}

var nullRow = joinRow{}

func sideCells(r *joinRow) []any {
	if r == nil {
		return []any{nil, nil, nil}
	}
	return []any{r.k, r.s, r.val}
}

// bruteJoin is the nested-loop reference: every pair is tested with cond,
// and the join type decides what unmatched rows give.
func bruteJoin(left, right []joinRow, how string, cond func(l, r joinRow) bool) []string {
	lm, rm := make([]bool, len(left)), make([]bool, len(right))
	var out []string
	for i, l := range left {
		for j, r := range right {
			if cond(l, r) {
				lm[i], rm[j] = true, true
				if how != "left_semi" && how != "left_anti" {
					out = append(out, rowLine(append(sideCells(&l), sideCells(&r)...)...))
				}
			}
		}
	}
	for i, l := range left {
		switch {
		case how == "left_semi" && lm[i], how == "left_anti" && !lm[i]:
			out = append(out, rowLine(sideCells(&l)...))
		case (how == "left" || how == "full") && !lm[i]:
			out = append(out, rowLine(append(sideCells(&l), sideCells(nil)...)...))
		}
	}
	for j, r := range right {
		if (how == "right" || how == "full") && !rm[j] {
			out = append(out, rowLine(append(sideCells(nil), sideCells(&r)...)...))
		}
	}
	sort.Strings(out)
	return out
}

// eqInt and eqStr are SQL equality: null equals nothing.
func eqInt(a, b *int64) bool  { return a != nil && b != nil && *a == *b }
func eqStr(a, b *string) bool { return a != nil && b != nil && *a == *b }

func TestBatchJoinsMatchNestedLoop(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	rng := rand.New(rand.NewSource(7))
	left, right := randomJoinRows(rng, 40), randomJoinRows(rng, 30)
	l := joinFrame(t, s, [3]string{"lk", "ls", "lv"}, left)
	r := joinFrame(t, s, [3]string{"rk", "rs", "rv"}, right)
	conds := []struct {
		name string
		col  engine.Column
		ref  func(l, r joinRow) bool
	}{
		{"equi", engine.Col("lk").Eq(engine.Col("rk")), func(l, r joinRow) bool { return eqInt(l.k, r.k) }},
		{"two keys", engine.Col("rs").Eq(engine.Col("ls")).And(engine.Col("lk").Eq(engine.Col("rk"))), func(l, r joinRow) bool { return eqInt(l.k, r.k) && eqStr(l.s, r.s) }},
		{"equi and range", engine.Col("lk").Eq(engine.Col("rk")).And(engine.Col("lv").Lt(engine.Col("rv"))), func(l, r joinRow) bool { return eqInt(l.k, r.k) && l.val < r.val }},
		{"range only", engine.Col("lv").Plus(5).Lt(engine.Col("rv")), func(l, r joinRow) bool { return l.val+5 < r.val }},
		{"side filters", engine.Col("lk").Eq(engine.Col("rk")).And(engine.Col("lv").Gt(8)).And(engine.Col("rv").Leq(12)), func(l, r joinRow) bool { return eqInt(l.k, r.k) && l.val > 8 && r.val <= 12 }},
	}
	for _, c := range conds {
		for _, how := range []string{"inner", "left", "right", "full", "left_semi", "left_anti"} {
			t.Run(c.name+"/"+how, func(t *testing.T) {
				got := collectLines(t, l.Join(r, c.col, how))
				want := bruteJoin(left, right, how, c.ref)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("join %s %s: got %d rows, want %d\ngot:  %v\nwant: %v", c.name, how, len(got), len(want), got, want)
				}
			})
		}
	}
}

func TestBatchUsingJoinMatchesNestedLoop(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	rng := rand.New(rand.NewSource(11))
	left, right := randomJoinRows(rng, 35), randomJoinRows(rng, 25)
	l := joinFrame(t, s, [3]string{"k", "ls", "lv"}, left)
	r := joinFrame(t, s, [3]string{"k", "rs", "rv"}, right)
	for _, how := range []string{"inner", "left", "right", "full", "left_semi", "left_anti"} {
		t.Run(how, func(t *testing.T) {
			df := l.Join(r, "k", how)
			got := collectLines(t, df)
			// USING k: k once (coalesced for full), then ls, lv, rs, rv.
			full := bruteJoin(left, right, how, func(l, r joinRow) bool { return eqInt(l.k, r.k) })
			var want []string
			for _, line := range full {
				p := strings.Split(line, "|")
				if how == "left_semi" || how == "left_anti" {
					want = append(want, line)
					continue
				}
				k := p[0]
				if how == "right" || (how == "full" && k == "null") {
					k = p[3]
				}
				want = append(want, strings.Join([]string{k, p[1], p[2], p[4], p[5]}, "|"))
			}
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("using join %s: got %d rows, want %d\ngot:  %v\nwant: %v", how, len(got), len(want), got, want)
			}
			if how != "left_semi" && how != "left_anti" {
				if cols := strings.Join(df.Columns(), ","); cols != "k,ls,lv,rs,rv" {
					t.Fatalf("columns %s, want k,ls,lv,rs,rv", cols)
				}
			}
		})
	}
}

func TestJoinAmbiguousColumnsAndAliases(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	k1, k2 := int64(1), int64(2)
	a := joinFrame(t, s, [3]string{"k", "s", "v"}, []joinRow{{k: &k1, val: 10}, {k: &k2, val: 20}})
	b := joinFrame(t, s, [3]string{"k", "s", "v"}, []joinRow{{k: &k1, val: 100}})
	bad := a.Join(b, engine.Col("k").Eq(engine.Col("k")))
	if err := bad.Err(); err == nil || !strings.Contains(err.Error(), "AMBIGUOUS_REFERENCE") || !strings.Contains(err.Error(), "Alias") {
		t.Fatalf("ambiguous k: got %v, want an AMBIGUOUS_REFERENCE error naming Alias", err)
	}
	j := a.Alias("a").Join(b.Alias("b"), engine.Col("a.k").Eq(engine.Col("b.k")), "left").
		Select(engine.Col("a.k"), engine.Col("a.v"), engine.Col("b.v").Alias("bv"))
	got := collectLines(t, j)
	want := []string{"1|10|100", "2|20|null"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("aliased join: got %v, want %v", got, want)
	}
	all := collectLines(t, a.Alias("a").Join(b.Alias("b"), engine.Col("a.k").Eq(engine.Col("b.k"))).Select("*"))
	if strings.Join(all, ",") != "1|null|10|1|null|100" {
		t.Fatalf("select * of a join with duplicate names: got %v", all)
	}
	if _, err := (a.Join(b, "k", "sideways")).Count(context.Background()); err == nil || !strings.Contains(err.Error(), "unsupported join type") {
		t.Fatalf("bad join type: %v", err)
	}
}

func TestSQLJoinsMatchNestedLoop(t *testing.T) {
	s := sqlSession(t)
	rng := rand.New(rand.NewSource(13))
	left, right := randomJoinRows(rng, 30), randomJoinRows(rng, 30)
	if err := joinFrame(t, s, [3]string{"k", "s", "v"}, left).CreateOrReplaceTempView("l"); err != nil {
		t.Fatal(err)
	}
	if err := joinFrame(t, s, [3]string{"k", "s", "v"}, right).CreateOrReplaceTempView("r"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sql, how string }{
		{"JOIN", "inner"}, {"INNER JOIN", "inner"}, {"LEFT JOIN", "left"}, {"LEFT OUTER JOIN", "left"},
		{"RIGHT OUTER JOIN", "right"}, {"FULL OUTER JOIN", "full"}, {"FULL JOIN", "full"},
	} {
		t.Run(c.sql, func(t *testing.T) {
			q := "SELECT a.k, a.s, a.v, b.k, b.s, b.v FROM l AS a " + c.sql + " r b ON a.k = b.k AND a.v <= b.v + 2"
			got := collectLines(t, mustSQL(t, s, q))
			want := bruteJoin(left, right, c.how, func(l, r joinRow) bool { return eqInt(l.k, r.k) && l.val <= r.val+2 })
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s: got %d rows, want %d\ngot:  %v\nwant: %v", q, len(got), len(want), got, want)
			}
		})
	}
	// USING (k): the key once; a full join coalesces it.
	got := collectLines(t, mustSQL(t, s, "SELECT k, l.v, r.v FROM l FULL JOIN r USING (k)"))
	var want []string
	for _, line := range bruteJoin(left, right, "full", func(l, r joinRow) bool { return eqInt(l.k, r.k) }) {
		p := strings.Split(line, "|")
		k := p[0]
		if k == "null" {
			k = p[3]
		}
		want = append(want, strings.Join([]string{k, p[2], p[5]}, "|"))
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("USING: got %v\nwant %v", got, want)
	}
	// An aggregate over a join.
	got = collectLines(t, mustSQL(t, s, "SELECT a.k, count(*) AS n FROM l a JOIN r b ON a.k = b.k GROUP BY a.k"))
	counts := map[int64]int{}
	for _, l := range left {
		for _, r := range right {
			if eqInt(l.k, r.k) {
				counts[*l.k]++
			}
		}
	}
	want = nil
	for k, n := range counts {
		want = append(want, fmt.Sprintf("%d|%d", k, n))
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("aggregate over a join: got %v\nwant %v", got, want)
	}
	if _, err := s.SQL("SELECT v FROM l JOIN r ON l.k = r.k"); err == nil || !strings.Contains(err.Error(), "AMBIGUOUS_REFERENCE") || !strings.Contains(err.Error(), "line 1, column 8") {
		t.Fatalf("ambiguous v: got %v, want a positioned AMBIGUOUS_REFERENCE", err)
	}
	if _, err := s.SQL("SELECT * FROM l JOIN r ON l.k = r.nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown column in ON: %v", err)
	}
}

// TestDropAndRenameAfterJoinWithDuplicateNames: Drop removes every column
// of the name, as Spark's drop; WithColumnRenamed and WithColumn keep the
// other columns apart by position.
func TestDropAndRenameAfterJoinWithDuplicateNames(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	k1 := int64(1)
	a := joinFrame(t, s, [3]string{"k", "s", "v"}, []joinRow{{k: &k1, val: 10}})
	b := joinFrame(t, s, [3]string{"k", "s", "v"}, []joinRow{{k: &k1, val: 100}})
	j := a.Alias("a").Join(b.Alias("b"), engine.Col("a.k").Eq(engine.Col("b.k")))
	if got := strings.Join(j.Drop("s").Columns(), ","); got != "k,v,k,v" {
		t.Fatalf("drop s: columns %s, want k,v,k,v", got)
	}
	if got := collectLines(t, j.Drop("s").WithColumn("w", engine.Col("a.v").Plus(1))); strings.Join(got, ",") != "1|10|1|100|11" {
		t.Fatalf("withColumn after a join: %v", got)
	}
}
