package interop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/spark-connect-go/spark/sparkerrors"
	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/apache/spark-connect-go/spark/sql/column"
	"github.com/apache/spark-connect-go/spark/sql/functions"
	"github.com/apache/spark-connect-go/spark/sql/types"
	"github.com/apache/spark-connect-go/spark/sql/utils"
)

// floors is the second DataFrame of the joins: the floor of two of the
// three departments, and one department nobody is in.
var floors = map[string]int64{"eng": 1, "ops": 2, "hr": 3}

func createFloors(ctx context.Context, spark sql.SparkSession) (sql.DataFrame, error) {
	schema := &types.StructType{Fields: []types.StructField{
		{Name: "dept", DataType: types.STRING, Nullable: true},
		{Name: "floor", DataType: types.LONG, Nullable: true},
	}}
	return spark.CreateDataFrame(ctx, [][]any{{"eng", 1}, {"ops", 2}, {"hr", 3}}, schema)
}

// sparkErrorOf is the official client's SparkError in err's chain.
func sparkErrorOf(err error) (*sparkerrors.SparkError, bool) {
	var se *sparkerrors.SparkError
	return se, errors.As(err, &se)
}

// wantClass checks that err is the SparkError of class and state, with an
// errorId for FetchErrorDetails, and (when set) one message parameter.
func wantClass(err error, class, state, param, value string) error {
	if err == nil {
		return fmt.Errorf("no error, want %s", class)
	}
	se, ok := sparkErrorOf(err)
	if !ok {
		return fmt.Errorf("%v is no SparkError", err)
	}
	if se.ErrorClass != class || se.SqlState != state || se.ErrorId == "" {
		return fmt.Errorf("class %q state %q errorId %q (%v), want %s %s and an id", se.ErrorClass, se.SqlState, se.ErrorId, err, class, state)
	}
	if param != "" && se.Parameters[param] != value {
		return fmt.Errorf("parameter %s = %q, want %q (%v)", param, se.Parameters[param], value, se.Parameters)
	}
	return nil
}

// moreOps covers joins, grouped shortcuts, column functions, sorting with
// nulls, the writer and reader, timestamps the client sends, Spark's
// error classes, and the eager actions.
func moreOps(t *testing.T, spark sql.SparkSession, df sql.DataFrame, ps []person) []op {
	var ops []op
	add := func(o op) { ops = append(ops, o) }
	joined := func(ctx context.Context, jt utils.JoinType) (sql.DataFrame, error) {
		fl, err := createFloors(ctx, spark)
		if err != nil {
			return nil, err
		}
		p, f := df.Alias(ctx, "p"), fl.Alias(ctx, "f")
		return p.Join(ctx, f, col("p.dept").Eq(col("f.dept")), jt)
	}
	add(op{name: "Join inner (CreateDataFrame x2)", run: func(ctx context.Context) (sql.DataFrame, error) {
		j, err := joined(ctx, utils.JoinTypeInner)
		if err != nil {
			return nil, err
		}
		return j.Select(ctx, col("p.id"), col("f.floor"))
	}, rows: func() []string {
		return each(ps, func(p person) bool { _, ok := floors[p.dept]; return ok }, func(p person) string { return line(p.id, floors[p.dept]) })
	}})
	add(op{name: "Join left outer", run: func(ctx context.Context) (sql.DataFrame, error) {
		j, err := joined(ctx, utils.JoinTypeLeftOuter)
		if err != nil {
			return nil, err
		}
		return j.Select(ctx, col("p.id"), col("f.floor"))
	}, rows: func() []string {
		return each(ps, nil, func(p person) string {
			if f, ok := floors[p.dept]; ok {
				return line(p.id, f)
			}
			return line(p.id, nil)
		})
	}})
	add(op{name: "Join left semi", run: func(ctx context.Context) (sql.DataFrame, error) {
		j, err := joined(ctx, utils.JoinTypeLeftSemi)
		if err != nil {
			return nil, err
		}
		return j.Select(ctx, col("id"))
	}, rows: func() []string {
		return each(ps, func(p person) bool { _, ok := floors[p.dept]; return ok }, func(p person) string { return line(p.id) })
	}})
	add(op{name: "Join left anti", run: func(ctx context.Context) (sql.DataFrame, error) {
		j, err := joined(ctx, utils.JoinTypeLeftAnti)
		if err != nil {
			return nil, err
		}
		return j.Select(ctx, col("id"))
	}, rows: func() []string {
		return each(ps, func(p person) bool { _, ok := floors[p.dept]; return !ok }, func(p person) string { return line(p.id) })
	}})
	add(op{name: "Join full outer (count)", check: func(ctx context.Context) error {
		j, err := joined(ctx, utils.JoinTypeFullOuter)
		if err != nil {
			return err
		}
		n, err := j.Count(ctx)
		// every person once, plus "hr", which nobody is in
		if want := int64(len(ps) + 1); err == nil && n != want {
			err = fmt.Errorf("count %d, want %d", n, want)
		}
		return err
	}})
	add(op{name: "CrossJoin", check: func(ctx context.Context) error {
		fl, err := createFloors(ctx, spark)
		if err != nil {
			return err
		}
		n, err := mustDF(df.Filter(ctx, col("id").Le(functions.Int64Lit(4)))).CrossJoin(ctx, fl).Count(ctx)
		if err == nil && n != 4*int64(len(floors)) {
			err = fmt.Errorf("count %d, want %d", n, 4*len(floors))
		}
		return err
	}})

	// GroupedData shortcuts and more aggregates.
	byDept := func(val func(p person) (float64, bool), fold func(acc []float64) any) []string {
		m := map[any][]float64{}
		seen := map[any]bool{}
		for _, p := range ps {
			seen[p.deptV()] = true
			if v, ok := val(p); ok {
				m[p.deptV()] = append(m[p.deptV()], v)
			}
		}
		var out []string
		for k := range seen {
			out = append(out, line(k, fold(m[k])))
		}
		return out
	}
	salary := func(p person) (float64, bool) { return p.salary, true }
	age := func(p person) (float64, bool) { return float64(p.age), p.age != 0 }
	sum := func(xs []float64) any {
		var s float64
		for _, x := range xs {
			s += x
		}
		return s
	}
	add(op{name: "GroupBy.Avg salary", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.GroupBy(col("dept")).Avg(ctx, "salary")
	}, rows: func() []string { return byDept(salary, func(xs []float64) any { return meanOf(xs) }) }})
	add(op{name: "GroupBy.Max age", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.GroupBy(col("dept")).Max(ctx, "age")
	}, rows: func() []string {
		return byDept(age, func(xs []float64) any {
			if len(xs) == 0 {
				return nil
			}
			m := xs[0]
			for _, x := range xs {
				m = math.Max(m, x)
			}
			return int64(m)
		})
	}})
	add(op{name: "GroupBy.Sum salary", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.GroupBy(col("dept")).Sum(ctx, "salary")
	}, rows: func() []string { return byDept(salary, sum) }})
	add(op{name: "GroupBy.Min salary", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.GroupBy(col("dept")).Min(ctx, "salary")
	}, rows: func() []string {
		return byDept(salary, func(xs []float64) any {
			m := xs[0]
			for _, x := range xs {
				m = math.Min(m, x)
			}
			return m
		})
	}})
	add(op{name: "AggWithMap salary max", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.AggWithMap(ctx, map[string]string{"salary": "max"})
	}, rows: func() []string {
		m := 0.0
		for _, p := range ps {
			m = math.Max(m, p.salary)
		}
		return []string{line(m)}
	}})
	add(op{name: "Agg count(DISTINCT age)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Agg(ctx, functions.Expr("count(DISTINCT age)"))
	}, rows: func() []string {
		m := map[int64]bool{}
		for _, p := range ps {
			if p.age != 0 {
				m[p.age] = true
			}
		}
		return []string{line(int64(len(m)))}
	}})
	add(op{name: "Agg Stddev salary", check: func(ctx context.Context) error {
		rows, err := mustDF(df.Agg(ctx, functions.Stddev(col("salary")))).Collect(ctx)
		if err != nil {
			return err
		}
		got, ok := rows[0].At(0).(float64)
		if want := sampleStddev(salaries(ps)); !ok || !approx(got, want) {
			return fmt.Errorf("stddev %v, want %v", rows[0].At(0), want)
		}
		return nil
	}})

	// Column functions.
	add(op{name: "Select Upper(name)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Select(ctx, functions.Upper(col("name")))
	}, rows: func() []string { return each(ps, nil, func(p person) string { return strings.ToUpper(p.name) }) }})
	add(op{name: "Select Length(name)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Select(ctx, functions.Length(col("name")))
	}, rows: func() []string { return each(ps, nil, func(p person) string { return line(len(p.name)) }) }})
	add(op{name: "Select Concat(name, dept)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Select(ctx, functions.Concat(col("name"), col("dept")))
	}, rows: func() []string {
		return each(ps, nil, func(p person) string {
			if p.dept == "" {
				return "null"
			}
			return p.name + p.dept
		})
	}})
	add(op{name: "Select Substring(name, 2, 2)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Select(ctx, functions.Substring(col("name"), 2, 2))
	}, rows: func() []string { return each(ps, nil, func(p person) string { return p.name[1:3] }) }})
	add(op{name: "Select Coalesce(dept, 'none')", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Select(ctx, col("id"), functions.Coalesce(col("dept"), functions.StringLit("none")))
	}, rows: func() []string {
		return each(ps, nil, func(p person) string {
			if p.dept == "" {
				return line(p.id, "none")
			}
			return line(p.id, p.dept)
		})
	}})
	add(op{name: "Select Abs(salary - 1250)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Select(ctx, functions.Abs(functions.Expr("salary - 1250")))
	}, rows: func() []string {
		return each(ps, nil, func(p person) string { return line(math.Abs(p.salary - 1250)) })
	}})
	add(op{name: "Select Expr(salary + age)", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Select(ctx, col("id"), functions.Expr("salary + age").Alias("s"))
	}, rows: func() []string {
		return each(ps, nil, func(p person) string {
			if p.age == 0 {
				return line(p.id, nil)
			}
			return line(p.id, p.salary+float64(p.age))
		})
	}})
	add(op{name: "SelectExpr CASE WHEN", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.SelectExpr(ctx, "id", "CASE WHEN salary >= 1250 THEN 'high' ELSE 'low' END AS band")
	}, rows: func() []string {
		return each(ps, nil, func(p person) string {
			if p.salary >= 1250 {
				return line(p.id, "high")
			}
			return line(p.id, "low")
		})
	}})
	add(op{name: "FilterByString IN and BETWEEN", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.FilterByString(ctx, "dept IN ('eng', 'sales') AND salary BETWEEN 1100 AND 1400")
	}, rows: func() []string {
		return each(ps, func(p person) bool {
			return (p.dept == "eng" || p.dept == "sales") && p.salary >= 1100 && p.salary <= 1400
		}, full)
	}})
	add(op{name: "Where AND/OR with NULL", run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Where(ctx, "salary > 1200 AND (dept = 'eng' OR age IS NULL)")
	}, rows: func() []string {
		return each(ps, func(p person) bool { return p.salary > 1200 && (p.dept == "eng" || p.age == 0) }, full)
	}})

	// Sorting: ascending puts nulls first, descending last (Spark's
	// defaults, which this client sends explicitly).
	byAge := func(desc bool) []person {
		out := append([]person(nil), ps...)
		sort.SliceStable(out, func(a, b int) bool {
			x, y := out[a], out[b]
			if (x.age == 0) != (y.age == 0) {
				return (x.age == 0) != desc
			}
			if x.age != y.age {
				return (x.age < y.age) != desc
			}
			return x.id < y.id
		})
		return out
	}
	add(op{name: "Sort age asc nulls first", ordered: true, run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Sort(ctx, col("age").Asc(), col("id").Asc())
	}, rows: func() []string { return each(byAge(false), nil, full) }})
	add(op{name: "Sort age desc nulls last", ordered: true, run: func(ctx context.Context) (sql.DataFrame, error) {
		return df.Sort(ctx, col("age").Desc(), col("id").Asc())
	}, rows: func() []string {
		out := append([]person(nil), ps...)
		sort.SliceStable(out, func(a, b int) bool {
			x, y := out[a], out[b]
			if (x.age == 0) != (y.age == 0) {
				return y.age == 0
			}
			if x.age != y.age {
				return x.age > y.age
			}
			return x.id < y.id
		})
		return each(out, nil, full)
	}})

	// Reshaping columns.
	add(op{name: "WithColumns", run: func(ctx context.Context) (sql.DataFrame, error) {
		d, err := df.WithColumns(ctx, column.WithAlias("double", col("salary").Mul(functions.Float64Lit(2))), column.WithAlias("one", functions.Int64Lit(1)))
		if err != nil {
			return nil, err
		}
		return d.Select(ctx, col("id"), col("double"), col("one"))
	}, rows: func() []string { return each(ps, nil, func(p person) string { return line(p.id, p.salary*2, 1) }) }})
	add(op{name: "WithColumnsRenamed", check: func(ctx context.Context) error {
		d, err := df.WithColumnsRenamed(ctx, map[string]string{"name": "who", "age": "years"})
		if err != nil {
			return err
		}
		c, err := d.Columns(ctx)
		if err == nil && strings.Join(c, ",") != "id,who,dept,salary,years" {
			err = fmt.Errorf("columns %v", c)
		}
		return err
	}})
	add(op{name: "Drop(columns)", check: func(ctx context.Context) error {
		d, err := df.Drop(ctx, col("salary"), col("dept"))
		if err != nil {
			return err
		}
		c, err := d.Columns(ctx)
		if err == nil && strings.Join(c, ",") != "id,name,age" {
			err = fmt.Errorf("columns %v", c)
		}
		return err
	}})
	add(op{name: "Schema types", check: func(ctx context.Context) error {
		s, err := df.Schema(ctx)
		if err != nil {
			return err
		}
		var got []string
		for _, f := range s.Fields {
			got = append(got, f.Name+":"+f.DataType.TypeName())
		}
		if want := "id:Long,name:String,dept:String,salary:Double,age:Long"; strings.Join(got, ",") != want {
			return fmt.Errorf("schema %v, want %s", got, want)
		}
		return nil
	}})

	// Eager actions.
	add(op{name: "First", check: func(ctx context.Context) error {
		r, err := mustDF(df.OrderBy(ctx, col("salary").Desc(), col("id").Asc())).First(ctx)
		if err != nil {
			return err
		}
		top := ps[0]
		for _, p := range ps {
			if p.salary > top.salary || (p.salary == top.salary && p.id < top.id) {
				top = p
			}
		}
		if r.At(0) != top.id {
			return fmt.Errorf("first id %v, want %d", r.At(0), top.id)
		}
		return nil
	}})
	add(op{name: "Take(4)", check: func(ctx context.Context) error {
		rows, err := mustDF(df.OrderBy(ctx, col("id").Asc())).Take(ctx, 4)
		if err != nil {
			return err
		}
		return sameIDs(rows, ps[:4])
	}})
	add(op{name: "ToArrow", check: func(ctx context.Context) error {
		tbl, err := df.ToArrow(ctx)
		if err != nil {
			return err
		}
		defer (*tbl).Release()
		if (*tbl).NumRows() != int64(len(ps)) || (*tbl).NumCols() != 5 {
			return fmt.Errorf("%d rows x %d columns, want %d x 5", (*tbl).NumRows(), (*tbl).NumCols(), len(ps))
		}
		return nil
	}})
	add(op{name: "Explain", check: func(ctx context.Context) error {
		s, err := mustDF(df.Filter(ctx, col("age").Gt(functions.Int64Lit(22)))).Explain(ctx, utils.ExplainModeSimple)
		if err == nil && strings.TrimSpace(s) == "" {
			err = fmt.Errorf("empty plan")
		}
		return err
	}})
	add(op{name: "Cache, Persist, Unpersist keep the rows", run: func(ctx context.Context) (sql.DataFrame, error) {
		if err := df.Cache(ctx); err != nil {
			return nil, err
		}
		if err := df.Persist(ctx, utils.StorageLevelMemoryOnly); err != nil {
			return nil, err
		}
		if err := df.Unpersist(ctx); err != nil {
			return nil, err
		}
		return df, nil
	}, rows: func() []string { return each(ps, nil, full) }})
	add(op{name: "Limit(0) is empty", run: func(ctx context.Context) (sql.DataFrame, error) { return df.Limit(ctx, 0), nil },
		rows: func() []string { return nil }})

	// SQL over the client's temp view: HAVING, and ORDER BY a column the
	// select list drops.
	view := func(ctx context.Context, q string) (sql.DataFrame, error) {
		if err := df.CreateOrReplaceTempView(ctx, "people_more"); err != nil {
			return nil, err
		}
		return spark.Sql(ctx, q)
	}
	add(op{name: "Sql GROUP BY HAVING", run: func(ctx context.Context) (sql.DataFrame, error) {
		return view(ctx, "SELECT dept, count(*) AS n FROM people_more GROUP BY dept HAVING count(*) >= 10 AND dept IS NOT NULL")
	}, rows: func() []string {
		m := map[string]int64{}
		for _, p := range ps {
			if p.dept != "" {
				m[p.dept]++
			}
		}
		var out []string
		for k, n := range m {
			if n >= 10 {
				out = append(out, line(k, n))
			}
		}
		return out
	}})
	add(op{name: "Sql ORDER BY a dropped column", ordered: true, run: func(ctx context.Context) (sql.DataFrame, error) {
		return view(ctx, "SELECT name FROM people_more ORDER BY salary DESC, id LIMIT 6")
	}, rows: func() []string {
		s := append([]person(nil), ps...)
		sort.SliceStable(s, func(a, b int) bool {
			if s[a].salary != s[b].salary {
				return s[a].salary > s[b].salary
			}
			return s[a].id < s[b].id
		})
		return each(s[:6], nil, func(p person) string { return p.name })
	}})

	// The writer and the reader.
	dir := t.TempDir()
	add(op{name: "Write parquet + Read back", run: func(ctx context.Context) (sql.DataFrame, error) {
		path := filepath.Join(dir, "people.parquet")
		if err := df.Write().Mode("overwrite").Format("parquet").Save(ctx, path); err != nil {
			return nil, err
		}
		return spark.Read().Format("parquet").Load(path)
	}, rows: func() []string { return each(ps, nil, full) }})
	add(op{name: "Read csv with header", run: func(ctx context.Context) (sql.DataFrame, error) {
		path := filepath.Join(dir, "depts.csv")
		var b strings.Builder
		b.WriteString("dept,floor\n")
		for _, d := range []string{"eng", "hr", "ops"} {
			fmt.Fprintf(&b, "%s,%d\n", d, floors[d])
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		return spark.Read().Format("csv").Option("header", "true").Load(path)
	}, rows: func() []string { return []string{"eng 1", "hr 3", "ops 2"} }})

	add(op{name: "Read csv with header and inferSchema", check: func(ctx context.Context) error {
		path := filepath.Join(dir, "typed.csv")
		if err := os.WriteFile(path, []byte("dept,floor,share,since\neng,1,0.5,2026-01-05\nops,2,0.25,2026-02-01\n"), 0o644); err != nil {
			return err
		}
		d, err := spark.Read().Format("csv").Option("header", "true").Option("inferSchema", "true").Load(path)
		if err != nil {
			return err
		}
		s, err := d.Schema(ctx)
		if err != nil {
			return err
		}
		var got []string
		for _, f := range s.Fields {
			got = append(got, f.Name+":"+f.DataType.TypeName())
		}
		if want := "dept:String,floor:Integer,share:Double,since:Date"; strings.Join(got, ",") != want {
			return fmt.Errorf("schema %v, want %s", got, want)
		}
		rows, err := rendered(ctx, mustDF(d.Select(ctx, col("dept"), col("floor"), col("share"))), false)
		if err == nil && strings.Join(rows, "|") != "eng 1 0.5|ops 2 0.25" {
			err = fmt.Errorf("rows %v", rows)
		}
		return err
	}})

	// Timestamps the client sends (timestamp[ms, UTC]) come back as
	// Spark's TimestampType in microseconds, compare with timestamp
	// literals, and keep their instant.
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	events := func(ctx context.Context) (sql.DataFrame, error) {
		schema := &types.StructType{Fields: []types.StructField{
			{Name: "n", DataType: types.LONG, Nullable: true},
			{Name: "at", DataType: types.TIMESTAMP, Nullable: true},
		}}
		var data [][]any
		for i := range 6 {
			data = append(data, []any{i, base.Add(time.Duration(i) * 90 * time.Minute)})
		}
		return spark.CreateDataFrame(ctx, data, schema)
	}
	add(op{name: "CreateDataFrame timestamps: schema", check: func(ctx context.Context) error {
		ev, err := events(ctx)
		if err != nil {
			return err
		}
		s, err := ev.Schema(ctx)
		if err != nil {
			return err
		}
		if got := s.Fields[1].DataType.TypeName(); got != "Timestamp" {
			return fmt.Errorf("at is %s, want Timestamp", got)
		}
		return nil
	}})
	add(op{name: "CreateDataFrame timestamps: filter and hour()", run: func(ctx context.Context) (sql.DataFrame, error) {
		ev, err := events(ctx)
		if err != nil {
			return nil, err
		}
		f, err := ev.FilterByString(ctx, "at >= TIMESTAMP '2026-03-01 15:00:00'")
		if err != nil {
			return nil, err
		}
		return f.SelectExpr(ctx, "n", "hour(at) AS h", "minute(at) AS m")
	}, rows: func() []string {
		var out []string
		for i := range 6 {
			at := base.Add(time.Duration(i) * 90 * time.Minute)
			if !at.Before(time.Date(2026, 3, 1, 15, 0, 0, 0, time.UTC)) {
				out = append(out, line(int64(i), at.Hour(), at.Minute()))
			}
		}
		return out
	}})
	add(op{name: "CreateDataFrame timestamps: instants kept", check: func(ctx context.Context) error {
		ev, err := events(ctx)
		if err != nil {
			return err
		}
		rows, err := mustDF(ev.OrderBy(ctx, col("n").Asc())).Collect(ctx)
		if err != nil {
			return err
		}
		// This client hands timestamps over as the raw arrow value: in
		// microseconds, Spark's unit.
		for i, r := range rows {
			at, ok := r.At(1).(arrow.Timestamp)
			if want := base.Add(time.Duration(i) * 90 * time.Minute).UnixMicro(); !ok || int64(at) != want {
				return fmt.Errorf("row %d at %v (%T), want %d µs", i, r.At(1), r.At(1), want)
			}
		}
		return nil
	}})

	// Spark's error classes, as this client reads them (ErrorInfo).
	add(op{name: "Error UNRESOLVED_COLUMN", check: func(ctx context.Context) error {
		d, err := df.Select(ctx, col("salery"))
		if err == nil {
			_, err = d.Collect(ctx)
		}
		return wantClass(err, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703", "objectName", "`salery`")
	}})
	add(op{name: "Error TABLE_OR_VIEW_NOT_FOUND", check: func(ctx context.Context) error {
		d, err := spark.Sql(ctx, "SELECT * FROM no_such_view")
		if err == nil {
			_, err = d.Collect(ctx)
		}
		return wantClass(err, "TABLE_OR_VIEW_NOT_FOUND", "42P01", "relationName", "`no_such_view`")
	}})
	add(op{name: "Error DIVIDE_BY_ZERO", check: func(ctx context.Context) error {
		d, err := df.SelectExpr(ctx, "salary / (age - age)")
		if err == nil {
			_, err = d.Collect(ctx)
		}
		return wantClass(err, "DIVIDE_BY_ZERO", "22012", "", "")
	}})
	add(op{name: "Error PATH_NOT_FOUND", check: func(ctx context.Context) error {
		missing := filepath.Join(dir, "missing.parquet")
		d, err := spark.Read().Format("parquet").Load(missing)
		if err == nil {
			_, err = d.Collect(ctx)
		}
		return wantClass(err, "PATH_NOT_FOUND", "42K03", "path", "file:"+filepath.ToSlash(missing))
	}})
	add(op{name: "Error PARSE_SYNTAX_ERROR", check: func(ctx context.Context) error {
		d, err := spark.Sql(ctx, "SELEC 1")
		if err == nil {
			_, err = d.Collect(ctx)
		}
		return wantClass(err, "PARSE_SYNTAX_ERROR", "42601", "", "")
	}})
	return ops
}
