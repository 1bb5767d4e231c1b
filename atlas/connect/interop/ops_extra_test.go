package interop

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/apache/spark-connect-go/spark/sql/column"
	"github.com/apache/spark-connect-go/spark/sql/functions"
)

// extraOps are further everyday operations of the official client: the
// aggregate name mappings against Spark 4, cube and rollup, random splits, range
// repartitioning, aliases and scalar functions, each against an answer
// computed in Go from people().
func extraOps(df sql.DataFrame, ps []person) []op {
	var ops []op
	add := func(o op) { ops = append(ops, o) }

	// Spark 4's function registry has no count_distinct nor sum_distinct:
	// PySpark and Scala send count/sum with is_distinct, but this client
	// sends those names, which Spark 4 answers with UNRESOLVED_ROUTINE.
	for _, c := range []struct {
		name string
		fn   column.Column
	}{{"count_distinct", functions.CountDistinct(col("age"))}, {"sum_distinct", functions.SumDistinct(col("age"))}} {
		add(op{name: "Agg " + c.name + " is UNRESOLVED_ROUTINE as in Spark 4", check: func(ctx context.Context) error {
			res, err := df.Agg(ctx, c.fn)
			if err == nil {
				_, err = res.Collect(ctx)
			}
			return wantClass(err, "UNRESOLVED_ROUTINE", "42883", "routineName", "`"+c.name+"`")
		}})
	}
	add(op{name: "Agg count(DISTINCT age): column name", check: func(ctx context.Context) error {
		res, err := df.Agg(ctx, functions.Expr("count(DISTINCT age)"))
		if err != nil {
			return err
		}
		s, err := res.Schema(ctx)
		if err != nil {
			return err
		}
		if len(s.Fields) != 1 || s.Fields[0].Name != "count(DISTINCT age)" {
			return fmt.Errorf("columns %v, want [count(DISTINCT age)]", s.Fields)
		}
		return nil
	}})
	add(op{name: "Agg Mean salary", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Agg(ctx, functions.Mean(col("salary")))
	}, rows: func() []string { return []string{line(meanOf(salaries(ps)))} }})

	// Cube and rollup: every grouping set, the left-out keys null.
	counts := func(key func(p person) string) map[string]int64 {
		m := map[string]int64{}
		for _, p := range ps {
			m[key(p)]++
		}
		return m
	}
	deptKey := func(p person) string { return line(p.deptV()) }
	add(op{name: "Cube(dept).Count", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Cube(ctx, col("dept")).Count(ctx)
	}, rows: func() []string {
		var out []string
		for k, n := range counts(deptKey) {
			out = append(out, k+" "+line(n))
		}
		return append(out, line(nil, int64(len(ps))))
	}})
	add(op{name: "Cube(dept, age).Agg max salary", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Cube(ctx, col("dept"), col("age")).Agg(ctx, functions.Max(col("salary")))
	}, rows: func() []string {
		// One groupBy per grouping set; a (null, null) group of the data
		// and the grand total are two rows with the same keys.
		var out []string
		sets := []func(p person) (any, any){
			func(p person) (any, any) { return p.deptV(), p.ageV() },
			func(p person) (any, any) { return p.deptV(), nil },
			func(p person) (any, any) { return nil, p.ageV() },
			func(p person) (any, any) { return nil, nil },
		}
		for _, set := range sets {
			m := map[string]float64{}
			for _, p := range ps {
				d, a := set(p)
				k := line(d, a)
				if v, ok := m[k]; !ok || p.salary > v {
					m[k] = p.salary
				}
			}
			for k, v := range m {
				out = append(out, k+" "+line(v))
			}
		}
		return out
	}})
	add(op{name: "Rollup(dept, age).Count", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Rollup(ctx, col("dept"), col("age")).Count(ctx)
	}, rows: func() []string {
		var out []string
		for k, n := range counts(func(p person) string { return line(p.deptV(), p.ageV()) }) {
			out = append(out, k+" "+line(n))
		}
		for k, n := range counts(deptKey) {
			out = append(out, k+" null "+line(n))
		}
		return append(out, line(nil, nil, int64(len(ps))))
	}})

	add(op{name: "RandomSplit(0.3, 0.7) partitions the rows", check: func(ctx context.Context) error {
		parts, err := df.RandomSplit(ctx, []float64{0.3, 0.7})
		if err != nil {
			return err
		}
		seen := map[int64]int{}
		for _, part := range parts {
			rows, err := part.Collect(ctx)
			if err != nil {
				return err
			}
			for _, r := range rows {
				seen[r.At(0).(int64)]++
			}
		}
		for _, p := range ps {
			if seen[p.id] != 1 {
				return fmt.Errorf("id %d is in %d splits, want exactly 1", p.id, seen[p.id])
			}
		}
		if len(seen) != len(ps) {
			return fmt.Errorf("%d ids in the splits, want %d", len(seen), len(ps))
		}
		return nil
	}})
	add(op{name: "RepartitionByRange(3, age)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.RepartitionByRange(ctx, 3, col("age"))
	}, rows: func() []string { return each(ps, nil, full) }})
	add(op{name: "Alias + qualified column", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Alias(ctx, "p").Select(ctx, col("p.name"))
	}, rows: func() []string { return each(ps, nil, func(p person) string { return line(p.name) }) }})

	// Scalar functions, each against Go's own answer.
	scalar := func(name string, c column.Column, want func(p person) any) {
		add(op{name: "Select " + name, run: func(ctx context.Context) (sql.DataFrame, error) {
			return df.Select(ctx, col("id"), c)
		}, rows: func() []string {
			return each(ps, nil, func(p person) string { return line(p.id, want(p)) })
		}})
	}
	scalar("Lower(Upper(name))", functions.Lower(functions.Upper(col("name"))), func(p person) any { return p.name })
	scalar("Initcap(name)", functions.Initcap(col("name")), func(p person) any { return "P" + p.name[1:] })
	scalar("Reverse(name)", functions.Reverse(col("name")), func(p person) any { return string([]byte{p.name[2], p.name[1], p.name[0]}) })
	scalar("Lpad(name, 5, '*')", functions.Lpad(col("name"), 5, "*"), func(p person) any { return "**" + p.name })
	scalar("Repeat(name, 2)", functions.Repeat(col("name"), 2), func(p person) any { return p.name + p.name })
	scalar("Round(salary / 7, 2)", functions.Round(col("salary").Div(functions.Float64Lit(7)), 2), func(p person) any {
		return math.Round(p.salary/7*100) / 100
	})
	scalar("Sqrt(salary)", functions.Sqrt(col("salary")), func(p person) any { return math.Sqrt(p.salary) })
	scalar("Floor(salary / 3)", functions.Floor(col("salary").Div(functions.Float64Lit(3))), func(p person) any { return int64(math.Floor(p.salary / 3)) })
	scalar("Ceil(salary / 3)", functions.Ceil(col("salary").Div(functions.Float64Lit(3))), func(p person) any { return int64(math.Ceil(p.salary / 3)) })
	scalar("Greatest(age, 23)", functions.Greatest(col("age"), functions.Int64Lit(23)), func(p person) any {
		if p.age == 0 {
			return int64(23) // greatest skips nulls
		}
		return max(p.age, 23)
	})
	scalar("Least(age, 23)", functions.Least(col("age"), functions.Int64Lit(23)), func(p person) any {
		if p.age == 0 {
			return int64(23)
		}
		return min(p.age, 23)
	})
	scalar("Nvl(dept, 'none')", functions.Nvl(col("dept"), functions.StringLit("none")), func(p person) any {
		if p.dept == "" {
			return "none"
		}
		return p.dept
	})
	scalar("Isnull(age)", functions.Isnull(col("age")), func(p person) any { return p.age == 0 })
	scalar("ConcatWs('-', name, dept)", functions.ConcatWs("-", col("name"), col("dept")), func(p person) any {
		if p.dept == "" {
			return p.name // concat_ws skips nulls
		}
		return p.name + "-" + p.dept
	})
	scalar("Instr(name, '1')", functions.Instr(col("name"), "1"), func(p person) any { return int32(strings.Index(p.name, "1") + 1) })
	scalar("Translate(name, 'p', 'q')", functions.Translate(col("name"), "p", "q"), func(p person) any { return strings.ReplaceAll(p.name, "p", "q") })
	scalar("Signum(salary - 1250)", functions.Signum(functions.Expr("salary - 1250")), func(p person) any {
		switch d := p.salary - 1250; {
		case d > 0:
			return 1.0
		case d < 0:
			return -1.0
		}
		return 0.0
	})

	add(op{name: "GroupBy dept Agg CollectSet age", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.GroupBy(col("dept")).Agg(ctx, functions.CollectSet(col("age")))
	}, rows: func() []string {
		sets := map[string]map[int64]bool{}
		for _, p := range ps {
			k := line(p.deptV())
			if sets[k] == nil {
				sets[k] = map[int64]bool{}
			}
			if p.age != 0 {
				sets[k][p.age] = true
			}
		}
		var out []string
		for k, s := range sets {
			var vs []any
			for a := range s {
				vs = append(vs, a)
			}
			sort.Slice(vs, func(i, j int) bool { return vs[i].(int64) < vs[j].(int64) })
			out = append(out, k+" "+line(vs))
		}
		return out
	}})
	return ops
}
