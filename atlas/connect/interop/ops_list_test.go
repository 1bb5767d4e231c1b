package interop

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/apache/spark-connect-go/spark/sql/functions"
	"github.com/apache/spark-connect-go/spark/sql/types"
)

// buildOps lists the operations: each runs through the official client
// and names the answer computed from ps alone.
func buildOps(t *testing.T, spark sql.SparkSession, df sql.DataFrame, ps []person) []op {
	var ops []op
	add := func(o op) { ops = append(ops, o) }
	bySalaryDesc := func() []person {
		out := append([]person(nil), ps...)
		sort.SliceStable(out, func(a, b int) bool {
			if out[a].salary != out[b].salary {
				return out[a].salary > out[b].salary
			}
			return out[a].id < out[b].id
		})
		return out
	}
	sortedDF := func(ctx context.Context) sql.DataFrame {
		return mustDF(df.OrderBy(ctx, col("salary").Desc(), col("id").Asc()))
	}

	// CreateDataFrame itself (LocalRelation under ToDF).
	add(op{name: "CreateDataFrame+Collect", run: func(ctx context.Context) (sql.DataFrame, error) { return df, nil },
		rows: func() []string { return each(ps, nil, full) }})
	add(op{name: "CreateDataFrame.Count", check: func(ctx context.Context) error {
		n, err := df.Count(ctx)
		if err == nil && n != int64(len(ps)) {
			err = fmt.Errorf("count %d, want %d", n, len(ps))
		}
		return err
	}})
	add(op{name: "Columns", check: func(ctx context.Context) error {
		c, err := df.Columns(ctx)
		if err == nil && strings.Join(c, ",") != "id,name,dept,salary,age" {
			err = fmt.Errorf("columns %v", c)
		}
		return err
	}})

	// Filters by several thresholds.
	for _, th := range []int64{21, 23, 25} {
		add(op{name: fmt.Sprintf("Filter age>%d", th), run: func(ctx context.Context) (sql.DataFrame, error) {
			return df.Filter(ctx, col("age").Gt(functions.Int64Lit(th)))
		}, rows: func() []string { return each(ps, func(p person) bool { return p.age != 0 && p.age > th }, full) }})
	}
	for _, d := range []string{"eng", "ops", "sales"} {
		add(op{name: "FilterByString dept=" + d, run: func(ctx context.Context) (sql.DataFrame, error) {
			return df.FilterByString(ctx, "dept = '"+d+"'")
		}, rows: func() []string { return each(ps, func(p person) bool { return p.dept == d }, full) }})
	}
	add(op{name: "Where dept IS NULL", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Where(ctx, "dept IS NULL")
	}, rows: func() []string { return each(ps, func(p person) bool { return p.dept == "" }, full) }})

	// Select and SelectExpr.
	add(op{name: "Select id,name", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Select(ctx, col("id"), col("name"))
	}, rows: func() []string { return each(ps, nil, func(p person) string { return line(p.id, p.name) }) }})
	add(op{name: "SelectExpr salary*2", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.SelectExpr(ctx, "id", "salary * 2 AS twice")
	}, rows: func() []string { return each(ps, nil, func(p person) string { return line(p.id, p.salary*2) }) }})
	add(op{name: "WithColumn bonus", run: func(ctx context.Context) (sql.DataFrame, error) {
		d := mustDF(df.WithColumn(ctx, "bonus", col("salary").Mul(functions.Float64Lit(0.1))))
		return d.Select(ctx, col("id"), col("bonus"))
	}, rows: func() []string { return each(ps, nil, func(p person) string { return line(p.id, p.salary*0.1) }) }})
	add(op{name: "WithColumnRenamed", run: func(ctx context.Context) (sql.DataFrame, error) {
		d := mustDF(df.WithColumnRenamed(ctx, "name", "who"))
		return d.Select(ctx, col("who"))
	}, rows: func() []string { return each(ps, nil, func(p person) string { return p.name }) }})
	add(op{name: "DropByName", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.DropByName(ctx, "name", "dept", "salary")
	}, rows: func() []string { return each(ps, nil, func(p person) string { return line(p.id, p.ageV()) }) }})

	// OrderBy then Select / Filter / Limit (Select and Filter after a sort).
	for _, n := range []int32{1, 3, 7, 12} {
		add(op{name: fmt.Sprintf("OrderBy.Limit(%d)", n), ordered: true, run: func(ctx context.Context) (sql.DataFrame, error) {
			return sortedDF(ctx).Limit(ctx, n), nil
		}, rows: func() []string { return each(bySalaryDesc()[:n], nil, full) }})
		add(op{name: fmt.Sprintf("OrderBy.Select.Limit(%d)", n), ordered: true, run: func(ctx context.Context) (sql.DataFrame, error) {
			s := mustDF(sortedDF(ctx).Select(ctx, col("id"), col("salary")))
			return s.Limit(ctx, n), nil
		}, rows: func() []string {
			return each(bySalaryDesc()[:n], nil, func(p person) string { return line(p.id, p.salary) })
		}})
	}
	add(op{name: "OrderBy.Filter", ordered: true, run: func(ctx context.Context) (sql.DataFrame, error) {
		return sortedDF(ctx).Filter(ctx, col("dept").Eq(functions.StringLit("eng")))
	}, rows: func() []string { return each(bySalaryDesc(), func(p person) bool { return p.dept == "eng" }, full) }})
	add(op{name: "Limit.Filter", run: func(ctx context.Context) (sql.DataFrame, error) {
		return mustDF(df.OrderBy(ctx, col("id").Asc())).Limit(ctx, 10).Filter(ctx, col("id").Gt(functions.Int64Lit(5)))
	}, rows: func() []string { return each(ps[:10], func(p person) bool { return p.id > 5 }, full) }})

	// Tail, Offset, Head, Take, First, IsEmpty.
	for _, n := range []int32{1, 5, 40, 50} {
		add(op{name: fmt.Sprintf("Tail(%d)", n), check: func(ctx context.Context) error {
			rows, err := sortedDF(ctx).Tail(ctx, n)
			if err != nil {
				return err
			}
			all := bySalaryDesc()
			want := all[max(len(all)-int(n), 0):]
			return sameIDs(rows, want)
		}})
	}
	for _, n := range []int32{0, 5, 39, 45} {
		add(op{name: fmt.Sprintf("Offset(%d)", n), ordered: true, run: func(ctx context.Context) (sql.DataFrame, error) {
			return sortedDF(ctx).Offset(ctx, n), nil
		}, rows: func() []string { all := bySalaryDesc(); return each(all[min(int(n), len(all)):], nil, full) }})
	}
	add(op{name: "Head(3)", check: func(ctx context.Context) error {
		rows, err := sortedDF(ctx).Head(ctx, 3)
		if err != nil {
			return err
		}
		return sameIDs(rows, bySalaryDesc()[:3])
	}})
	add(op{name: "IsEmpty", check: func(ctx context.Context) error {
		e, err := mustDF(df.Filter(ctx, col("id").Gt(functions.Int64Lit(1000)))).IsEmpty(ctx)
		if err == nil && !e {
			err = fmt.Errorf("IsEmpty false")
		}
		return err
	}})

	// Aggregations.
	add(op{name: "GroupBy dept Count", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.GroupBy(col("dept")).Count(ctx)
	}, rows: func() []string {
		m := map[any]int64{}
		for _, p := range ps {
			m[p.deptV()]++
		}
		var out []string
		for k, v := range m {
			out = append(out, line(k, v))
		}
		return out
	}})
	add(op{name: "GroupBy dept Agg sum/max/min", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.GroupBy(col("dept")).Agg(ctx, functions.Sum(col("salary")), functions.Max(col("age")), functions.Min(col("id")))
	}, rows: func() []string {
		type a struct {
			s     float64
			mx    int64
			mn    int64
			seenA bool
		}
		m := map[any]*a{}
		for _, p := range ps {
			x := m[p.deptV()]
			if x == nil {
				x = &a{mn: math.MaxInt64}
				m[p.deptV()] = x
			}
			x.s += p.salary
			if p.age != 0 && p.age > x.mx {
				x.mx, x.seenA = p.age, true
			}
			x.mn = min(x.mn, p.id)
		}
		var out []string
		for k, x := range m {
			var mx any
			if x.seenA {
				mx = x.mx
			}
			out = append(out, line(k, x.s, mx, x.mn))
		}
		return out
	}})
	add(op{name: "Agg global avg", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Agg(ctx, functions.Avg(col("salary")))
	}, rows: func() []string {
		var s float64
		for _, p := range ps {
			s += p.salary
		}
		return []string{line(s / float64(len(ps)))}
	}})
	add(op{name: "Distinct dept", run: func(ctx context.Context) (sql.DataFrame, error) {
		return mustDF(df.Select(ctx, col("dept"))).Distinct(ctx), nil
	}, rows: func() []string { return []string{"eng", "ops", "sales", "null"} }})
	add(op{name: "DropDuplicates dept", run: func(ctx context.Context) (sql.DataFrame, error) {
		d := mustDF(df.DropDuplicates(ctx, "dept"))
		return d.Select(ctx, col("dept"))
	}, rows: func() []string { return []string{"eng", "ops", "sales", "null"} }})

	// Set operations.
	low := func(ctx context.Context) sql.DataFrame {
		return mustDF(df.Filter(ctx, col("id").Lt(functions.Int64Lit(21))))
	}
	mid := func(ctx context.Context) sql.DataFrame {
		return mustDF(df.FilterByString(ctx, "id > 10 AND id < 31"))
	}
	inLow := func(p person) bool { return p.id < 21 }
	inMid := func(p person) bool { return p.id > 10 && p.id < 31 }
	add(op{name: "Union", run: func(ctx context.Context) (sql.DataFrame, error) { return low(ctx).Union(ctx, mid(ctx)), nil },
		rows: func() []string { return append(each(ps, inLow, full), each(ps, inMid, full)...) }})
	add(op{name: "UnionAll", run: func(ctx context.Context) (sql.DataFrame, error) { return low(ctx).UnionAll(ctx, mid(ctx)), nil },
		rows: func() []string { return append(each(ps, inLow, full), each(ps, inMid, full)...) }})
	// This client's UnionByName leaves is_all unset, which Spark's server
	// reads as UNION DISTINCT: the rows both sides have appear once.
	add(op{name: "UnionByName (reordered)", run: func(ctx context.Context) (sql.DataFrame, error) {
		a := mustDF(low(ctx).Select(ctx, col("id"), col("name")))
		b := mustDF(mid(ctx).Select(ctx, col("name"), col("id")))
		return a.UnionByName(ctx, b), nil
	}, rows: func() []string {
		return each(ps, func(p person) bool { return inLow(p) || inMid(p) }, func(p person) string { return line(p.id, p.name) })
	}})
	add(op{name: "UnionByNameWithMissingColumns", run: func(ctx context.Context) (sql.DataFrame, error) {
		a := mustDF(low(ctx).Select(ctx, col("id"), col("name")))
		b := mustDF(mid(ctx).Select(ctx, col("id"), col("age")))
		return a.UnionByNameWithMissingColumns(ctx, b), nil
	}, rows: func() []string {
		return append(each(ps, inLow, func(p person) string { return line(p.id, p.name, nil) }),
			each(ps, inMid, func(p person) string { return line(p.id, nil, p.ageV()) })...)
	}})
	add(op{name: "Intersect", run: func(ctx context.Context) (sql.DataFrame, error) { return low(ctx).Intersect(ctx, mid(ctx)), nil },
		rows: func() []string { return each(ps, func(p person) bool { return inLow(p) && inMid(p) }, full) }})
	add(op{name: "Subtract", run: func(ctx context.Context) (sql.DataFrame, error) { return low(ctx).Subtract(ctx, mid(ctx)), nil },
		rows: func() []string { return each(ps, func(p person) bool { return inLow(p) && !inMid(p) }, full) }})
	deptAge := func(ctx context.Context, d sql.DataFrame) sql.DataFrame {
		return mustDF(d.Select(ctx, col("dept"), col("age")))
	}
	multiset := func(keep func(person) bool) map[string]int {
		m := map[string]int{}
		for _, p := range ps {
			if keep(p) {
				m[line(p.deptV(), p.ageV())]++
			}
		}
		return m
	}
	add(op{name: "ExceptAll (dept, age)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return deptAge(ctx, low(ctx)).ExceptAll(ctx, deptAge(ctx, mid(ctx))), nil
	}, rows: func() []string {
		l, r := multiset(inLow), multiset(inMid)
		var out []string
		for k, n := range l {
			for range n - min(n, r[k]) {
				out = append(out, k)
			}
		}
		return out
	}})
	add(op{name: "IntersectAll (dept, age)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return deptAge(ctx, low(ctx)).IntersectAll(ctx, deptAge(ctx, mid(ctx))), nil
	}, rows: func() []string {
		l, r := multiset(inLow), multiset(inMid)
		var out []string
		for k, n := range l {
			for range min(n, r[k]) {
				out = append(out, k)
			}
		}
		return out
	}})
	add(op{name: "Intersect (dept, age) distinct", run: func(ctx context.Context) (sql.DataFrame, error) {
		return deptAge(ctx, low(ctx)).Intersect(ctx, deptAge(ctx, mid(ctx))), nil
	}, rows: func() []string {
		l, r := multiset(inLow), multiset(inMid)
		var out []string
		for k := range l {
			if r[k] > 0 {
				out = append(out, k)
			}
		}
		return out
	}})

	// Repartition and Coalesce are accepted and change no row.
	add(op{name: "Repartition(4)", run: func(ctx context.Context) (sql.DataFrame, error) { return df.Repartition(ctx, 4, nil) },
		rows: func() []string { return each(ps, nil, full) }})
	add(op{name: "Repartition(2, dept)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Repartition(ctx, 2, []string{"dept"})
	}, rows: func() []string { return each(ps, nil, full) }})
	add(op{name: "Coalesce(1)", run: func(ctx context.Context) (sql.DataFrame, error) { return df.Coalesce(ctx, 1), nil },
		rows: func() []string { return each(ps, nil, full) }})

	// Sampling: a fraction of 1 keeps everything, 0 nothing; a seed repeats.
	add(op{name: "Sample(1.0)", run: func(ctx context.Context) (sql.DataFrame, error) { return df.SampleWithSeed(ctx, 1.0, 7) },
		rows: func() []string { return each(ps, nil, full) }})
	add(op{name: "Sample(0.0)", run: func(ctx context.Context) (sql.DataFrame, error) { return df.SampleWithSeed(ctx, 0.0, 7) },
		rows: func() []string { return nil }})
	add(op{name: "Sample(0.5, seed) repeats and is a subset", check: func(ctx context.Context) error {
		a, err := rendered(ctx, mustDF(df.SampleWithSeed(ctx, 0.5, 42)), false)
		if err != nil {
			return err
		}
		b, err := rendered(ctx, mustDF(df.SampleWithSeed(ctx, 0.5, 42)), false)
		if err != nil {
			return err
		}
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			return fmt.Errorf("the same seed sampled different rows")
		}
		all := map[string]bool{}
		for _, r := range each(ps, nil, full) {
			all[r] = true
		}
		for _, r := range a {
			if !all[r] {
				return fmt.Errorf("sampled row %q is not an input row", r)
			}
		}
		if len(a) == 0 || len(a) == len(ps) {
			return fmt.Errorf("sample(0.5) of %d rows kept %d", len(ps), len(a))
		}
		return nil
	}})

	// na functions.
	add(op{name: "Na.Drop (any)", run: func(ctx context.Context) (sql.DataFrame, error) { return df.Na().Drop(ctx) },
		rows: func() []string { return each(ps, func(p person) bool { return p.dept != "" && p.age != 0 }, full) }})
	add(op{name: "Na.Drop subset age", run: func(ctx context.Context) (sql.DataFrame, error) { return df.Na().Drop(ctx, "age") },
		rows: func() []string { return each(ps, func(p person) bool { return p.age != 0 }, full) }})
	add(op{name: "Na.DropAll dept,age", run: func(ctx context.Context) (sql.DataFrame, error) { return df.Na().DropAll(ctx, "dept", "age") },
		rows: func() []string { return each(ps, func(p person) bool { return p.dept != "" || p.age != 0 }, full) }})
	add(op{name: "Na.DropWithThreshold 5", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Na().DropWithThreshold(ctx, 5)
	}, rows: func() []string { return each(ps, func(p person) bool { return p.dept != "" && p.age != 0 }, full) }})
	add(op{name: "Na.DropWithThreshold 4", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Na().DropWithThreshold(ctx, 4)
	}, rows: func() []string { return each(ps, func(p person) bool { return p.dept != "" || p.age != 0 }, full) }})
	add(op{name: "Na.Fill string", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Na().Fill(ctx, types.String("none"))
	}, rows: func() []string {
		return each(ps, nil, func(p person) string {
			d := p.deptV()
			if d == nil {
				d = "none"
			}
			return line(p.id, p.name, d, p.salary, p.ageV())
		})
	}})
	add(op{name: "Na.Fill int64 age", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Na().Fill(ctx, types.Int64(-1), "age")
	}, rows: func() []string {
		return each(ps, nil, func(p person) string {
			a := p.ageV()
			if a == nil {
				a = int64(-1)
			}
			return line(p.id, p.name, p.deptV(), p.salary, a)
		})
	}})
	add(op{name: "Na.FillWithValues", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Na().FillWithValues(ctx, map[string]types.PrimitiveTypeLiteral{"dept": types.String("?"), "age": types.Int64(0)})
	}, rows: func() []string {
		return each(ps, nil, func(p person) string {
			d := p.deptV()
			if d == nil {
				d = "?"
			}
			return line(p.id, p.name, d, p.salary, p.age)
		})
	}})
	add(op{name: "Na.Replace strings", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Na().Replace(ctx, []types.PrimitiveTypeLiteral{types.String("eng"), types.String("ops")},
			[]types.PrimitiveTypeLiteral{types.String("engineering"), types.String("operations")}, "dept")
	}, rows: func() []string {
		return each(ps, nil, func(p person) string {
			d := p.deptV()
			switch d {
			case "eng":
				d = "engineering"
			case "ops":
				d = "operations"
			}
			return line(p.id, p.name, d, p.salary, p.ageV())
		})
	}})

	ops = append(ops, statOps(df, ps)...)
	ops = append(ops, sessionOps(t, spark, df, ps)...)
	ops = append(ops, moreOps(t, spark, df, ps)...)
	ops = append(ops, extraOps(df, ps)...)
	return ops
}

// sameIDs compares rows' first column with the people's ids, in order.
func sameIDs(rows []types.Row, want []person) error {
	if len(rows) != len(want) {
		return fmt.Errorf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if r.At(0) != want[i].id {
			return fmt.Errorf("row %d id %v, want %d", i, r.At(0), want[i].id)
		}
	}
	return nil
}
