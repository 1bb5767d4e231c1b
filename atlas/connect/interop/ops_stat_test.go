package interop

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/apache/spark-connect-go/spark/sql/functions"
)

// javaDouble is Java's Double.toString for the values these tests meet
// (plain notation between 1e-3 and 1e7, at least one fractional digit).
func javaDouble(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func salaries(ps []person) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = p.salary
	}
	return out
}

func ages(ps []person) []float64 {
	var out []float64
	for _, p := range ps {
		if p.age != 0 {
			out = append(out, float64(p.age))
		}
	}
	return out
}

func meanOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func sampleStddev(xs []float64) float64 {
	m := meanOf(xs)
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}

// rank is the smallest x with at least p of xs at or below it.
func rank(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func statOps(df sql.DataFrame, ps []person) []op {
	var ops []op
	add := func(o op) { ops = append(ops, o) }
	var sx, sy []float64 // (salary, age) where age is set
	for _, p := range ps {
		if p.age != 0 {
			sx, sy = append(sx, p.salary), append(sy, float64(p.age))
		}
	}
	cov := func(a, b []float64) float64 {
		ma, mb := meanOf(a), meanOf(b)
		var s float64
		for i := range a {
			s += (a[i] - ma) * (b[i] - mb)
		}
		return s / float64(len(a)-1)
	}
	add(op{name: "Stat.Cov salary,age", check: func(ctx context.Context) error {
		v, err := df.Stat().Cov(ctx, "salary", "age")
		if err == nil && !approx(v, cov(sx, sy)) {
			err = fmt.Errorf("cov %v, want %v", v, cov(sx, sy))
		}
		return err
	}})
	add(op{name: "Stat.Corr salary,age", check: func(ctx context.Context) error {
		want := cov(sx, sy) / math.Sqrt(cov(sx, sx)*cov(sy, sy))
		v, err := df.Corr(ctx, "salary", "age")
		if err == nil && !approx(v, want) {
			err = fmt.Errorf("corr %v, want %v", v, want)
		}
		return err
	}})
	add(op{name: "Stat.Corr id,id is 1", check: func(ctx context.Context) error {
		v, err := df.Stat().CorrWithMethod(ctx, "id", "id", "pearson")
		if err == nil && !approx(v, 1) {
			err = fmt.Errorf("corr %v, want 1", v)
		}
		return err
	}})
	for _, probs := range [][]float64{{0.5}, {0, 0.25, 0.75, 1}} {
		add(op{name: fmt.Sprintf("ApproxQuantile salary,age %v", probs), check: func(ctx context.Context) error {
			got, err := df.ApproxQuantile(ctx, probs, 0, "salary", "age")
			if err != nil {
				return err
			}
			for k, xs := range [][]float64{salaries(ps), ages(ps)} {
				for j, p := range probs {
					if got[k][j] != rank(xs, p) {
						return fmt.Errorf("column %d p=%v: %v, want %v", k, p, got[k][j], rank(xs, p))
					}
				}
			}
			return nil
		}})
	}
	add(op{name: "Stat.CrossTab dept,age", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Stat().CrossTab(ctx, "dept", "age"), nil
	}, rows: func() []string {
		agesSeen := map[string]bool{}
		cells := map[string]map[string]int64{}
		for _, p := range ps {
			d, a := line(p.deptV()), line(p.ageV())
			agesSeen[a] = true
			if cells[d] == nil {
				cells[d] = map[string]int64{}
			}
			cells[d][a]++
		}
		var cols []string
		for a := range agesSeen {
			cols = append(cols, a)
		}
		sort.Strings(cols)
		var out []string
		for d, m := range cells {
			vals := []any{d}
			for _, a := range cols {
				vals = append(vals, m[a])
			}
			out = append(out, line(vals...))
		}
		return out
	}})
	add(op{name: "Stat.FreqItems dept (support 0.2)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Stat().FreqItemsWithSupport(ctx, 0.2, "dept"), nil
	}, rows: func() []string {
		m := map[any]int{}
		for _, p := range ps {
			m[p.deptV()]++
		}
		var items []any
		for k, n := range m {
			if float64(n) > 0.2*float64(len(ps)) {
				items = append(items, k)
			}
		}
		return []string{line(items)}
	}})
	describeRow := func(stat string, xs []float64, name []string) string {
		switch stat {
		case "count":
			return line("count", fmt.Sprint(len(xs)), fmt.Sprint(len(name)))
		case "mean":
			return line("mean", javaDouble(meanOf(xs)), nil)
		case "stddev":
			return line("stddev", javaDouble(sampleStddev(xs)), nil)
		case "min":
			return line("min", javaDouble(rank(xs, 0)), name[0])
		case "max":
			return line("max", javaDouble(rank(xs, 1)), name[len(name)-1])
		}
		return ""
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	sort.Strings(names)
	add(op{name: "Describe salary,name", ordered: true, run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Describe(ctx, "salary", "name"), nil
	}, rows: func() []string {
		var out []string
		for _, s := range []string{"count", "mean", "stddev", "min", "max"} {
			out = append(out, describeRow(s, salaries(ps), names))
		}
		return out
	}})
	add(op{name: "Summary count,min,50%,max", ordered: true, run: func(ctx context.Context) (sql.DataFrame, error) {
		d := df.Summary(ctx, "count", "min", "50%", "max")
		return d.Select(ctx, col("summary"), col("salary"), col("age"))
	}, rows: func() []string {
		sal, ag := salaries(ps), ages(ps)
		return []string{
			line("count", fmt.Sprint(len(sal)), fmt.Sprint(len(ag))),
			line("min", javaDouble(rank(sal, 0)), fmt.Sprint(int64(rank(ag, 0)))),
			line("50%", javaDouble(rank(sal, 0.5)), fmt.Sprint(int64(rank(ag, 0.5)))),
			line("max", javaDouble(rank(sal, 1)), fmt.Sprint(int64(rank(ag, 1)))),
		}
	}})
	add(op{name: "Summary default stats (8 rows)", check: func(ctx context.Context) error {
		rows, err := df.Summary(ctx).Collect(ctx)
		if err != nil {
			return err
		}
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprint(r.At(0)))
		}
		if strings.Join(got, ",") != "count,mean,stddev,min,25%,50%,75%,max" {
			return fmt.Errorf("summary statistics %v", got)
		}
		return nil
	}})
	_ = functions.Col
	return ops
}

// sessionOps covers the session: Sql over the client's own temp view,
// Range, Table and the writer.
func sessionOps(t *testing.T, spark sql.SparkSession, df sql.DataFrame, ps []person) []op {
	var ops []op
	add := func(o op) { ops = append(ops, o) }
	add(op{name: "CreateOrReplaceTempView + Sql", run: func(ctx context.Context) (sql.DataFrame, error) {
		if err := df.CreateOrReplaceTempView(ctx, "people"); err != nil {
			return nil, err
		}
		return spark.Sql(ctx, "SELECT dept, count(*) AS n FROM people WHERE salary > 1200 GROUP BY dept")
	}, rows: func() []string {
		m := map[any]int64{}
		for _, p := range ps {
			if p.salary > 1200 {
				m[p.deptV()]++
			}
		}
		var out []string
		for k, n := range m {
			out = append(out, line(k, n))
		}
		return out
	}})
	add(op{name: "Sql ORDER BY LIMIT", ordered: true, run: func(ctx context.Context) (sql.DataFrame, error) {
		if err := df.CreateOrReplaceTempView(ctx, "people"); err != nil {
			return nil, err
		}
		return spark.Sql(ctx, "SELECT id, salary FROM people ORDER BY salary DESC, id LIMIT 5")
	}, rows: func() []string {
		s := append([]person(nil), ps...)
		sort.SliceStable(s, func(a, b int) bool {
			if s[a].salary != s[b].salary {
				return s[a].salary > s[b].salary
			}
			return s[a].id < s[b].id
		})
		return each(s[:5], nil, func(p person) string { return line(p.id, p.salary) })
	}})
	add(op{name: "CreateGlobalTempView + global_temp", run: func(ctx context.Context) (sql.DataFrame, error) {
		if err := df.CreateOrReplaceGlobalTempView(ctx, "people_g"); err != nil {
			return nil, err
		}
		return spark.Sql(ctx, "SELECT id FROM global_temp.people_g WHERE age IS NULL")
	}, rows: func() []string {
		return each(ps, func(p person) bool { return p.age == 0 }, func(p person) string { return line(p.id) })
	}})
	return ops
}
