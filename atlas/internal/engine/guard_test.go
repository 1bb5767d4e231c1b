package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/guard"
)

// TestLimitTakesConstantExpressions runs Spark's rule for LIMIT: any
// constant integer expression (SELECT 1 AS a LIMIT 1+1 is one row in
// Spark; it was a nil-pointer panic that took the server down), and
// INVALID_LIMIT_LIKE_EXPRESSION with its subclass otherwise.
func TestLimitTakesConstantExpressions(t *testing.T) {
	s := sqlSession(t)
	rows := rowsOf(t, mustSQL(t, s, "SELECT 1 AS a LIMIT 1+1"))
	if len(rows) != 1 || rows[0]["a"] != int64(1) {
		t.Fatalf("SELECT 1 AS a LIMIT 1+1: %v, want one row a=1", rows)
	}
	mustSQL(t, s, "CREATE TABLE lakehouse.default.five (v bigint) USING iceberg")
	mustSQL(t, s, "INSERT INTO lakehouse.default.five VALUES (1), (2), (3), (4), (5)")
	for q, want := range map[string]int{
		"SELECT v FROM lakehouse.default.five ORDER BY v LIMIT 1+1":              2,
		"SELECT v FROM lakehouse.default.five ORDER BY v LIMIT 2*2-1":            3,
		"SELECT v FROM lakehouse.default.five ORDER BY v LIMIT CAST('4' AS INT)": 4,
		"SELECT v FROM lakehouse.default.five ORDER BY v LIMIT (0)":              0,
		"SELECT v FROM lakehouse.default.five LIMIT coalesce(NULL, 9)":           5,
	} {
		rows := rowsOf(t, mustSQL(t, s, q))
		if len(rows) != want {
			t.Errorf("%s: %d rows, want %d", q, len(rows), want)
		}
		for i, r := range rows {
			if strings.Contains(q, "ORDER BY") && r["v"] != int64(i+1) {
				t.Errorf("%s: row %d is %v, want v=%d", q, i, r, i+1)
			}
		}
	}
	for q, class := range map[string]string{
		"SELECT v FROM lakehouse.default.five LIMIT v":          "INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE",
		"SELECT v FROM lakehouse.default.five LIMIT v + 1":      "INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE",
		"SELECT v FROM lakehouse.default.five LIMIT rand() * 3": "INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE",
		"SELECT v FROM lakehouse.default.five LIMIT 1 - 2":      "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE",
		"SELECT v FROM lakehouse.default.five LIMIT 'two'":      "INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE",
		"SELECT v FROM lakehouse.default.five LIMIT 1.5":        "INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE",
		"SELECT v FROM lakehouse.default.five LIMIT NULL":       "INVALID_LIMIT_LIKE_EXPRESSION.IS_NULL",
	} {
		_, err := s.SQL(q)
		if err == nil || !strings.Contains(err.Error(), "["+class+"]") {
			t.Errorf("%s: %v, want %s", q, err, class)
		}
	}
}

// TestNestedExpressionCostsLinearTime evaluates right-nested sums: the
// time per level must not grow with the depth. Before, every level
// rendered the text of the levels below it (once for the error message of
// an evaluation that did not fail), cubic in the depth: 1,000 levels took
// 33 s here, 3,000 levels 35 s on the machine of the report.
func TestNestedExpressionCostsLinearTime(t *testing.T) {
	s := sqlSession(t)
	nested := func(n int) string {
		return "SELECT " + strings.Repeat("1+(", n) + "1" + strings.Repeat(")", n) + " AS x"
	}
	run := func(n int) time.Duration {
		start := time.Now()
		rows := rowsOf(t, mustSQL(t, s, nested(n)))
		if len(rows) != 1 || rows[0]["x"] != int64(n+1) {
			t.Fatalf("%d levels: %v, want x=%d", n, rows, n+1)
		}
		return time.Since(start)
	}
	run(50) // warm up
	small, large := run(100), run(900)
	// 9 times the levels: linear is ~9 times the time, cubic 729 times.
	if large > 60*small+200*time.Millisecond {
		t.Fatalf("100 levels took %v, 900 levels %v: super-linear", small, large)
	}
}

// TestEvaluationStopsWhenTheCallerCancels runs a deep expression with a
// context that is already cancelled: evaluation checks it before each
// operand and stops with context.Canceled, not after computing it all.
func TestEvaluationStopsWhenTheCallerCancels(t *testing.T) {
	s := sqlSession(t)
	df := mustSQL(t, s, "SELECT "+strings.Repeat("1+(", 500)+"1"+strings.Repeat(")", 500)+" AS x")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := df.Collect(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("collect under a cancelled context: %v, want context.Canceled", err)
	}
}

// TestPanickingForeachBatchFailsOnlyItsQuery runs a query whose
// foreachBatch function panics: the query fails with the panic as a
// *guard.PanicError (its batch uncommitted), and the process, its session
// and another query go on. Before, the panic ended the process.
func TestPanickingForeachBatchFailsOnlyItsQuery(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("events", "v bigint")
	if err != nil {
		t.Fatal(err)
	}
	if err := ms.AddRows([]any{int64(1)}, []any{int64(2)}); err != nil {
		t.Fatal(err)
	}
	var m map[string]int
	q, err := ms.ToDF().WriteStream().Option("checkpointLocation", filepath.Join(home, "ck")).
		Trigger(engine.AvailableNow()).Progress(false).
		ForeachBatch(func(*engine.DataFrame, int64) error {
			m["boom"]++ // a nil map: a runtime panic
			return nil
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- q.AwaitTermination() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the query did not end after its foreachBatch function panicked")
	}
	pe := guard.AsPanic(err)
	if pe == nil || !strings.Contains(pe.Error(), "assignment to entry in nil map") || !strings.Contains(string(pe.Stack), "guard_test.go") {
		t.Fatalf("AwaitTermination: %v, want the panic with its stack", err)
	}
	if q.IsActive() {
		t.Fatal("the query is still active")
	}
	// The same checkpoint replays the uncommitted batch: both rows arrive.
	var got int64
	q2, err := ms.ToDF().WriteStream().Option("checkpointLocation", filepath.Join(home, "ck")).
		Trigger(engine.AvailableNow()).Progress(false).
		ForeachBatch(func(df *engine.DataFrame, _ int64) error {
			n, err := df.Count(context.Background())
			got += n
			return err
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q2.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if got != 2 {
		t.Fatalf("the replay saw %d rows, want 2", got)
	}
}
