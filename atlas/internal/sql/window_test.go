package sql_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// wrow is one row of the random table t(id, p, o, v); nil fields are NULL.
type wrow struct {
	id   int
	p    *string
	o, v *int
}

func randomRows(r *rand.Rand, n int) []wrow {
	parts := []string{"x", "y", "z"}
	rows := make([]wrow, n)
	for i := range rows {
		rows[i].id = i
		if k := r.Intn(4); k < 3 {
			rows[i].p = &parts[k]
		}
		if r.Intn(6) > 0 {
			o := r.Intn(6) // few values: many ties
			rows[i].o = &o
		}
		if r.Intn(5) > 0 {
			v := r.Intn(13) - 3
			rows[i].v = &v
		}
	}
	return rows
}

func valuesSQL(rows []wrow) string {
	var b strings.Builder
	b.WriteString("VALUES ")
	for i, w := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		p, o, v := "CAST(NULL AS STRING)", "CAST(NULL AS INT)", "CAST(NULL AS INT)"
		if w.p != nil {
			p = "'" + *w.p + "'"
		}
		if w.o != nil {
			o = fmt.Sprint(*w.o)
		}
		if w.v != nil {
			v = fmt.Sprint(*w.v)
		}
		fmt.Fprintf(&b, "(%d, %s, %s, %s)", w.id, p, o, v)
	}
	b.WriteString(" AS t(id, p, o, v)")
	return b.String()
}

// runByID runs SELECT id, <fn> FROM t and returns each id's result.
func runByID(t *testing.T, rows []wrow, fn string) map[int]string {
	t.Helper()
	q := "SELECT id, " + fn + " FROM " + valuesSQL(rows)
	st, err := parser.Parse(q)
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	n, err := sql.PlanSelect(st.(*parser.Select), noTables)
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	_, recs, err := exec.Collect(context.Background(), n)
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	out := map[int]string{}
	for _, r := range recs {
		ids := r.Column(0).(*array.Int32)
		for i := 0; i < int(r.NumRows()); i++ {
			out[int(ids.Value(i))] = fmtCell(r.Column(1), i)
		}
		r.Release()
	}
	return out
}

func fmtCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch c := a.(type) {
	case *array.Float64:
		return fmt.Sprintf("%.9f", c.Value(i))
	case *array.Int64:
		return fmt.Sprint(c.Value(i))
	case *array.Int32:
		return fmt.Sprint(c.Value(i))
	}
	return a.ValueStr(i)
}

// The reference below never sorts: it decides every relation between two
// rows (same partition, ordered before, inside the frame) directly and
// loops over all rows for each row.

func samePart(a, b wrow) bool {
	if a.p == nil || b.p == nil {
		return a.p == nil && b.p == nil
	}
	return *a.p == *b.p
}

// cmpO compares o under ORDER BY o ASC NULLS FIRST (desc: DESC NULLS LAST).
func cmpO(a, b wrow, desc bool) int {
	switch {
	case a.o == nil && b.o == nil:
		return 0
	case a.o == nil:
		if desc {
			return 1
		}
		return -1
	case b.o == nil:
		if desc {
			return -1
		}
		return 1
	}
	d := *a.o - *b.o
	if desc {
		d = -d
	}
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}

// cmpTotal orders by o, then id (the query's ORDER BY o, id).
func cmpTotal(a, b wrow, desc bool) int {
	if c := cmpO(a, b, desc); c != 0 {
		return c
	}
	return a.id - b.id
}

// refFrame describes a frame for the reference: kind per end, offsets.
type refFrame struct {
	rows           bool
	startK, endK   string // "UP", "P", "C", "F", "UF"
	startN, endN   int
	sql            string
	desc, orderIDs bool
}

func (f refFrame) orderSQL() string {
	s := "ORDER BY o"
	if f.desc {
		s += " DESC"
	}
	if f.orderIDs {
		s += ", id"
	}
	return s
}

// inFrame reports whether row j is in row i's frame (same partition).
func inFrame(rows []wrow, i, j int, f refFrame) bool {
	a, b := rows[i], rows[j]
	if f.rows {
		pos := func(x wrow) int {
			n := 0
			for _, y := range rows {
				if samePart(x, y) && cmpTotal(y, x, f.desc) < 0 {
					n++
				}
			}
			return n
		}
		pi, pj := pos(a), pos(b)
		lo, hi := -1<<30, 1<<30
		switch f.startK {
		case "P":
			lo = pi - f.startN
		case "C":
			lo = pi
		case "F":
			lo = pi + f.startN
		}
		switch f.endK {
		case "P":
			hi = pi - f.endN
		case "C":
			hi = pi
		case "F":
			hi = pi + f.endN
		}
		return pj >= lo && pj <= hi
	}
	cmp := func(x, y wrow) int {
		if f.orderIDs {
			return cmpTotal(x, y, f.desc)
		}
		return cmpO(x, y, f.desc)
	}
	// value of o as the ascending order sees it
	val := func(x wrow) int {
		if f.desc {
			return -*x.o
		}
		return *x.o
	}
	startOK := true
	switch f.startK {
	case "C":
		startOK = cmp(b, a) >= 0
	case "P", "F":
		n := f.startN
		if f.startK == "P" {
			n = -n
		}
		if a.o == nil {
			startOK = cmp(b, a) >= 0
		} else {
			startOK = b.o != nil && val(b) >= val(a)+n
		}
	}
	endOK := true
	switch f.endK {
	case "C":
		endOK = cmp(b, a) <= 0
	case "P", "F":
		n := f.endN
		if f.endK == "P" {
			n = -n
		}
		if a.o == nil {
			endOK = cmp(b, a) <= 0
		} else if b.o == nil {
			endOK = !f.desc // nulls come first ascending, last descending
		} else {
			endOK = val(b) <= val(a)+n
		}
	}
	return startOK && endOK
}

// refAgg computes an aggregate over the frame of row i.
func refAgg(rows []wrow, i int, f refFrame, fn string) string {
	var vals []int
	count := 0
	for j := range rows {
		if !samePart(rows[i], rows[j]) || !inFrame(rows, i, j, f) {
			continue
		}
		count++
		if rows[j].v != nil {
			vals = append(vals, *rows[j].v)
		}
	}
	switch fn {
	case "count(*)":
		return fmt.Sprint(count)
	case "count(v)":
		return fmt.Sprint(len(vals))
	}
	if len(vals) == 0 {
		return "NULL"
	}
	s, mn, mx := 0, vals[0], vals[0]
	for _, v := range vals {
		s += v
		mn, mx = min(mn, v), max(mx, v)
	}
	switch fn {
	case "sum(v)":
		return fmt.Sprint(s)
	case "min(v)":
		return fmt.Sprint(mn)
	case "max(v)":
		return fmt.Sprint(mx)
	}
	return fmt.Sprintf("%.9f", float64(s)/float64(len(vals)))
}

// refPick is first_value, last_value or nth_value over the frame, in the
// frame's (total) order.
func refPick(rows []wrow, i int, f refFrame, fn string, nth int, ignoreNulls bool) string {
	var frame []wrow
	for j := range rows {
		if samePart(rows[i], rows[j]) && inFrame(rows, i, j, f) {
			frame = append(frame, rows[j])
		}
	}
	// selection sort by the total order: no library sort in the reference
	for x := range frame {
		for y := x + 1; y < len(frame); y++ {
			if cmpTotal(frame[y], frame[x], f.desc) < 0 {
				frame[x], frame[y] = frame[y], frame[x]
			}
		}
	}
	if ignoreNulls {
		var kept []wrow
		for _, w := range frame {
			if w.v != nil {
				kept = append(kept, w)
			}
		}
		frame = kept
	}
	k := -1
	switch fn {
	case "first_value":
		k = 0
	case "last_value":
		k = len(frame) - 1
	case "nth_value":
		k = nth - 1
	}
	if k < 0 || k >= len(frame) || frame[k].v == nil {
		return "NULL"
	}
	return fmt.Sprint(*frame[k].v)
}

func vStr(v *int) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(*v)
}

func TestWindowFunctionsAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	frames := []refFrame{
		{rows: true, startK: "UP", endK: "UF", sql: ""}, // no ORDER BY: the whole partition
		{startK: "UP", endK: "C", sql: "ORDER BY o"},    // Spark's default with ORDER BY
		{startK: "UP", endK: "C", desc: true, sql: "ORDER BY o DESC"},
		{rows: true, startK: "P", startN: 2, endK: "F", endN: 1, orderIDs: true, sql: "ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING"},
		{rows: true, startK: "UP", endK: "P", endN: 1, orderIDs: true, sql: "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING"},
		{rows: true, startK: "F", startN: 1, endK: "UF", orderIDs: true, desc: true, sql: "ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING"},
		{rows: true, startK: "C", endK: "F", endN: 3, orderIDs: true, sql: "ROWS BETWEEN CURRENT ROW AND 3 FOLLOWING"},
		{startK: "P", startN: 1, endK: "F", endN: 1, sql: "RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING"},
		{startK: "P", startN: 1, endK: "F", endN: 2, desc: true, sql: "RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING"},
		{startK: "C", endK: "F", endN: 2, sql: "RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING"},
		{startK: "P", startN: 2, endK: "UF", sql: "RANGE BETWEEN 2 PRECEDING AND UNBOUNDED FOLLOWING"},
		{startK: "UP", endK: "F", endN: 1, desc: true, sql: "RANGE BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING"},
		{startK: "F", startN: 1, endK: "F", endN: 3, sql: "RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING"},
		{startK: "C", endK: "UF", orderIDs: true, sql: "RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"},
	}
	for round := 0; round < 3; round++ {
		rows := randomRows(r, 30+r.Intn(30))
		check := func(fn string, want func(i int) string) {
			t.Helper()
			got := runByID(t, rows, fn)
			for i := range rows {
				if w := want(i); got[i] != w {
					t.Errorf("round %d, %s: row %d (p=%v o=%s v=%s): got %s, want %s", round, fn, i, rows[i].p, vStr(rows[i].o), vStr(rows[i].v), got[i], w)
					return
				}
			}
		}
		for _, f := range frames {
			order := ""
			if f.sql != "" {
				order = f.orderSQL()
			}
			frameSQL := f.sql
			if strings.HasPrefix(f.sql, "ORDER BY") {
				frameSQL = ""
			}
			spec := strings.TrimSpace("PARTITION BY p " + order + " " + frameSQL)
			for _, fn := range []string{"sum(v)", "count(v)", "count(*)", "avg(v)", "min(v)", "max(v)"} {
				check(fn+" OVER ("+spec+")", func(i int) string { return refAgg(rows, i, f, fn) })
			}
			if f.orderIDs || f.sql == "" {
				for _, p := range []struct {
					fn     string
					nth    int
					ignore bool
				}{{"first_value", 0, false}, {"last_value", 0, false}, {"nth_value", 2, false}, {"first_value", 0, true}, {"last_value", 0, true}, {"nth_value", 3, true}} {
					call := p.fn + "(v)"
					if p.fn == "nth_value" {
						call = fmt.Sprintf("nth_value(v, %d)", p.nth)
					}
					if p.ignore {
						call += " IGNORE NULLS"
					}
					if f.sql == "" {
						continue // no order: the pick is not deterministic
					}
					check(call+" OVER ("+spec+")", func(i int) string { return refPick(rows, i, f, p.fn, p.nth, p.ignore) })
				}
			}
		}
		for _, desc := range []bool{false, true} {
			dir := ""
			if desc {
				dir = " DESC"
			}
			count := func(i int, pred func(j int) bool) int {
				n := 0
				for j := range rows {
					if samePart(rows[i], rows[j]) && pred(j) {
						n++
					}
				}
				return n
			}
			size := func(i int) int { return count(i, func(int) bool { return true }) }
			rank := func(i int) int { return 1 + count(i, func(j int) bool { return cmpO(rows[j], rows[i], desc) < 0 }) }
			check("rank() OVER (PARTITION BY p ORDER BY o"+dir+")", func(i int) string { return fmt.Sprint(rank(i)) })
			check("dense_rank() OVER (PARTITION BY p ORDER BY o"+dir+")", func(i int) string {
				// distinct o values before row i's
				var seen []wrow
				for j := range rows {
					if !samePart(rows[i], rows[j]) || cmpO(rows[j], rows[i], desc) >= 0 {
						continue
					}
					dup := false
					for _, s := range seen {
						dup = dup || cmpO(s, rows[j], desc) == 0
					}
					if !dup {
						seen = append(seen, rows[j])
					}
				}
				return fmt.Sprint(len(seen) + 1)
			})
			check("percent_rank() OVER (PARTITION BY p ORDER BY o"+dir+")", func(i int) string {
				if size(i) == 1 {
					return fmt.Sprintf("%.9f", 0.0)
				}
				return fmt.Sprintf("%.9f", float64(rank(i)-1)/float64(size(i)-1))
			})
			check("cume_dist() OVER (PARTITION BY p ORDER BY o"+dir+")", func(i int) string {
				return fmt.Sprintf("%.9f", float64(count(i, func(j int) bool { return cmpO(rows[j], rows[i], desc) <= 0 }))/float64(size(i)))
			})
			pos := func(i int) int {
				return count(i, func(j int) bool { return cmpTotal(rows[j], rows[i], desc) < 0 })
			}
			at := func(i, p int) (int, bool) {
				for j := range rows {
					if samePart(rows[i], rows[j]) && pos(j) == p {
						return j, true
					}
				}
				return 0, false
			}
			ord := "ORDER BY o" + dir + ", id"
			check("row_number() OVER (PARTITION BY p "+ord+")", func(i int) string { return fmt.Sprint(pos(i) + 1) })
			for _, buckets := range []int{1, 3, 7, 100} {
				check(fmt.Sprintf("ntile(%d) OVER (PARTITION BY p %s)", buckets, ord), func(i int) string {
					// bucket sizes: the first n%b buckets one row larger
					n := size(i)
					b, p := 1, pos(i)
					for start := 0; ; b++ {
						sz := n / buckets
						if b <= n%buckets {
							sz++
						}
						if p < start+sz {
							break
						}
						start += sz
					}
					return fmt.Sprint(b)
				})
			}
			for _, lg := range []struct {
				fn, def string
				off     int
				ignore  bool
			}{{"lag", "", 1, false}, {"lag", "-1", 2, false}, {"lead", "", 1, false}, {"lead", "100", 3, false}, {"lag", "", 1, true}, {"lead", "7", 2, true}, {"lag", "", 0, false}, {"lead", "", -1, false}} {
				call := fmt.Sprintf("%s(v, %d", lg.fn, lg.off)
				if lg.def != "" {
					call += ", " + lg.def
				}
				call += ")"
				if lg.ignore {
					call += " IGNORE NULLS"
				}
				check(call+" OVER (PARTITION BY p "+ord+")", func(i int) string {
					step := lg.off
					if lg.fn == "lag" {
						step = -step
					}
					def := "NULL"
					if lg.def != "" {
						def = lg.def
					}
					if !lg.ignore {
						if j, ok := at(i, pos(i)+step); ok {
							return vStr(rows[j].v)
						}
						return def
					}
					// the off-th non-null value in the direction of step
					dir := 1
					if step < 0 {
						dir = -1
					}
					left := lg.off
					for p := pos(i) + dir; ; p += dir {
						j, ok := at(i, p)
						if !ok {
							return def
						}
						if rows[j].v != nil {
							if left--; left == 0 {
								return vStr(rows[j].v)
							}
						}
					}
				})
			}
		}
	}
}

// TestWindowSchema checks Spark's column names and types of the window
// functions, from Spark's function documentation.
func TestWindowSchema(t *testing.T) {
	const from = " FROM VALUES ('A1', 2), ('A1', 1), ('A2', 3), ('A1', 1) tab(a, b)"
	for _, tc := range []struct{ q, schema, rows string }{
		{"SELECT a, b, rank(b) OVER (PARTITION BY a ORDER BY b)",
			"a:utf8:false b:int32:false RANK() OVER (PARTITION BY a ORDER BY b ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW):int32:false",
			"A1,1,1|A1,1,1|A1,2,3|A2,3,1"},
		{"SELECT a, b, lag(b) OVER (PARTITION BY a ORDER BY b)",
			"a:utf8:false b:int32:false lag(b, 1, NULL) OVER (PARTITION BY a ORDER BY b ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING):int32:true",
			"A1,1,NULL|A1,1,1|A1,2,1|A2,3,NULL"},
		{"SELECT b, sum(b) OVER (ORDER BY b DESC ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s, count(*) OVER ()",
			"b:int32:false s:int64:true count(1) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING):int64:false",
			"3,3,4|2,5,4|1,3,4|1,2,4"},
		{"SELECT a, sum(b) AS s, rank() OVER (ORDER BY sum(b) DESC) AS r, sum(sum(b)) OVER () AS total GROUP BY a",
			"", // the GROUP BY key's nullability is the aggregation's, not checked here
			"A1,4,1,7|A2,3,2,7"},
		{"SELECT percent_rank() OVER (ORDER BY b) AS pr, b",
			"pr:float64:false b:int32:false",
			"0,1|0,1|0.6666666666666666,2|1,3"},
	} {
		q := tc.q + from
		if i := strings.Index(tc.q, " GROUP BY"); i >= 0 {
			q = tc.q[:i] + from + tc.q[i:]
		}
		s, r, err := query(t, q)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if (tc.schema != "" && s != tc.schema) || r != tc.rows {
			t.Errorf("%s\n got: %s\n      %s\nwant: %s\n      %s", tc.q, s, r, tc.schema, tc.rows)
		}
	}
	for _, bad := range []struct{ q, want string }{
		{"SELECT rank() OVER (PARTITION BY a)", "requires window to be ordered"},
		{"SELECT a FROM tab WHERE row_number() OVER (ORDER BY b) = 1", "only allowed in the select list"},
		{"SELECT row_number()", "requires an OVER clause"},
		{"SELECT sum(b) OVER (ORDER BY a, b RANGE BETWEEN 1 PRECEDING AND CURRENT ROW)", "multiple order by"},
		{"SELECT sum(b) OVER (ORDER BY b ROWS BETWEEN CURRENT ROW AND 1 PRECEDING)", "lower bound"},
		{"SELECT count(DISTINCT b) OVER ()", "DISTINCT_WINDOW_FUNCTION_UNSUPPORTED"},
		{"SELECT a, rank() OVER (ORDER BY b) FROM tab GROUP BY a", "must appear in GROUP BY"},
	} {
		q := bad.q
		if !strings.Contains(q, "FROM") {
			q += from
		} else {
			q = strings.Replace(q, " FROM tab", from, 1)
		}
		if _, _, err := query(t, q); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: got %v, want an error with %q", bad.q, err, bad.want)
		}
	}
}
