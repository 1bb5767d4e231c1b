package interop

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/apache/spark-connect-go/spark/sql/functions"
)

// order is one row of the test table lakehouse.silver.orders.
type order struct {
	id      int64
	country string
	qty     int64
	price   float64
}

// orders is the known data, written through the engine (`atlas sql`) and
// aggregated in plain Go for the expected results.
func orders() []order {
	countries := []string{"NL", "FR", "DE", "BE", "IT"}
	out := make([]order, 150)
	for i := range out {
		out[i] = order{id: int64(i + 1), country: countries[(i*3)%5], qty: int64(i%11 + 1), price: float64(i%17) + 0.25}
	}
	return out
}

// atlasServer is an `atlas serve` process over a private home.
type atlasServer struct {
	bin, home, addr string
}

// env is the environment of the atlas processes: no ATLAS_* of the caller.
func env(home string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ATLAS_") {
			out = append(out, kv)
		}
	}
	return append(out, "ATLAS_HOME="+home, "ATLAS_KAFKA_ADDR=127.0.0.1:1")
}

// startAtlas builds the atlas command, seeds the lakehouse with rows and
// starts `atlas serve` on a free loopback port.
func startAtlas(t *testing.T, rows []order) *atlasServer {
	t.Helper()
	dir := t.TempDir()
	s := &atlasServer{bin: filepath.Join(dir, "atlas"), home: filepath.Join(dir, "home")}
	build := exec.Command("go", "build", "-o", s.bin, "github.com/atlas-lakehouse/atlas/atlas/cmd/atlas")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build atlas: %v\n%s", err, out)
	}
	var vals []string
	for _, o := range rows {
		vals = append(vals, fmt.Sprintf("(%d, '%s', %d, %s)", o.id, o.country, o.qty, strconv.FormatFloat(o.price, 'f', -1, 64)))
	}
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.silver",
		"CREATE TABLE lakehouse.silver.orders (id bigint, country string, qty bigint, price double) USING iceberg",
		"INSERT INTO lakehouse.silver.orders VALUES " + strings.Join(vals, ", "),
	} {
		cmd := exec.Command(s.bin, "sql", "--home", s.home, q)
		cmd.Env = env(s.home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("atlas sql %.50s: %v\n%s", q, err, out)
		}
	}
	cmd := exec.Command(s.bin, "serve", "--home", s.home, "--addr", "127.0.0.1:0", "--no-auth")
	cmd.Env = env(s.home)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	// "atlas connect: serving Spark Connect at ADDR (sc://ADDR), ..."
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("atlas serve printed no address: %v", err)
	}
	const marker = "serving Spark Connect at "
	i := strings.Index(line, marker)
	if i < 0 {
		t.Fatalf("atlas serve: unexpected first line %q", line)
	}
	s.addr = strings.Fields(line[i+len(marker):])[0]
	return s
}

// rowsOf renders rows as sorted "v1 v2 ..." lines.
func rowsOf(t *testing.T, df sql.DataFrame) []string {
	t.Helper()
	rows, err := df.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.TrimSpace(fmt.Sprintln(r.Values()...))
	}
	sort.Strings(out)
	return out
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\ngot  (%d)\n  %s\nwant (%d)\n  %s", what, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
	}
}

// collector keeps the rows WriteResult hands over.
type collector struct{ rows [][]any }

func (c *collector) WriteRow(values []any) { c.rows = append(c.rows, values) }

// TestOfficialGoClient runs the Apache Spark Connect Go client against an
// Atlas server: Sql (a SELECT over a lakehouse table and SHOW TABLES),
// Table, Filter, GroupBy().Agg, Count, Show and Collect, each compared with
// results computed in Go from the rows written.
func TestOfficialGoClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the atlas command")
	}
	data := orders()
	srv := startAtlas(t, data)
	ctx := context.Background()
	spark, err := sql.NewSessionBuilder().Remote("sc://" + srv.addr).Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer spark.Stop()

	type agg struct {
		n, q int64
		mx   float64
	}
	group := func(keep func(order) bool) map[string]agg {
		m := map[string]agg{}
		for _, o := range data {
			if keep(o) {
				a := m[o.country]
				a.n++
				a.q += o.qty
				a.mx = max(a.mx, o.price)
				m[o.country] = a
			}
		}
		return m
	}

	// spark.Sql with a SELECT over the lakehouse table.
	df, err := spark.Sql(ctx, "SELECT country, count(*) AS n, sum(qty) AS q FROM lakehouse.silver.orders WHERE price > 3 GROUP BY country")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for k, a := range group(func(o order) bool { return o.price > 3 }) {
		want = append(want, fmt.Sprintf("%s %d %d", k, a.n, a.q))
	}
	same(t, "Sql SELECT ... GROUP BY", rowsOf(t, df), want)

	// spark.Sql with a statement Spark runs eagerly.
	df, err = spark.Sql(ctx, "SHOW TABLES IN lakehouse.silver")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "Sql SHOW TABLES", rowsOf(t, df), []string{"silver orders false"})

	// Table, Filter, GroupBy().Agg, Count.
	tbl, err := spark.Table("lakehouse.silver.orders")
	if err != nil {
		t.Fatal(err)
	}
	filtered, err := tbl.Filter(ctx, functions.Col("qty").Gt(functions.Int32Lit(3)))
	if err != nil {
		t.Fatal(err)
	}
	grouped, err := filtered.GroupBy(functions.Col("country")).Agg(ctx,
		functions.Count(functions.Int64Lit(1)).Alias("n"),
		functions.Sum(functions.Col("qty")).Alias("q"),
		functions.Max(functions.Col("price")).Alias("mx"))
	if err != nil {
		t.Fatal(err)
	}
	want = want[:0]
	keep := func(o order) bool { return o.qty > 3 }
	for k, a := range group(keep) {
		want = append(want, fmt.Sprintf("%s %d %d %s", k, a.n, a.q, strconv.FormatFloat(a.mx, 'g', -1, 64)))
	}
	same(t, "Table.Filter.GroupBy.Agg", rowsOf(t, grouped), want)

	n, err := filtered.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wantN int64
	for _, o := range data {
		if keep(o) {
			wantN++
		}
	}
	if n != wantN {
		t.Fatalf("Count = %d, want %d", n, wantN)
	}

	// Show: the server renders the table as Spark's show() does.
	byCountry, err := spark.Sql(ctx, "SELECT country, count(*) AS n FROM lakehouse.silver.orders GROUP BY country ORDER BY country")
	if err != nil {
		t.Fatal(err)
	}
	var c collector
	if err := byCountry.WriteResult(ctx, &c, 2, true); err != nil {
		t.Fatal(err)
	}
	counts := group(func(order) bool { return true })
	wantShow := "+-------+---+\n|country|  n|\n+-------+---+\n" +
		fmt.Sprintf("|     BE|%3d|\n|     DE|%3d|\n", counts["BE"].n, counts["DE"].n) +
		"+-------+---+\nonly showing top 2 rows\n"
	if len(c.rows) != 1 || len(c.rows[0]) != 1 || c.rows[0][0] != wantShow {
		t.Fatalf("show rows %q, want one row %q", c.rows, wantShow)
	}
	if err := byCountry.Show(ctx, 2, true); err != nil {
		t.Fatal(err)
	}

	// A missing table fails with the engine's message.
	_, err = spark.Sql(ctx, "SELECT * FROM lakehouse.silver.missing")
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing table: %v", err)
	}
}
