package engine_test

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// Spark 4 runs with spark.sql.ansi.enabled=true by default (SQL reference,
// "ANSI Compliance": "Spark SQL will throw runtime exceptions on invalid
// operations, including integer overflow errors"), so sum() of bigints that
// leaves the bigint range fails with ARITHMETIC_OVERFLOW, as Atlas's "+"
// already does, instead of wrapping around to a number of the wrong sign.
// Sums that stay in range are exact: checked against math/big.
func TestSumOfBigintsOverflowFailsAndInRangeSumsAreExact(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.o")
	mustSQL(t, s, "CREATE TABLE lakehouse.o.v (k string, b bigint) USING iceberg")
	groups := map[string][]int64{
		"edge":  {math.MaxInt64 - 5, 2, 3},               // exactly MaxInt64 - 0
		"neg":   {math.MinInt64 + 7, -3, -4},             // exactly MinInt64
		"mixed": {math.MaxInt64, -5, math.MinInt64 + 10}, // 4, in range in every order
		"plain": {1, 2, 3, 40000000000},
	}
	var vals []string
	for k, vs := range groups {
		for _, v := range vs {
			vals = append(vals, fmt.Sprintf("('%s', %d)", k, v))
		}
	}
	// MinInt64 has no literal form (its magnitude is not a bigint): write it as an expression.
	ins := strings.ReplaceAll("INSERT INTO lakehouse.o.v VALUES "+strings.Join(vals, ", "), fmt.Sprint(int64(math.MinInt64)), "(-9223372036854775807 - 1)")
	mustSQL(t, s, ins)
	var want []string
	for k, vs := range groups {
		sum := new(big.Int)
		for _, v := range vs {
			sum.Add(sum, big.NewInt(v))
		}
		want = append(want, fmt.Sprintf("k=%s s=%s", k, sum))
	}
	sameLines(t, "in-range sums", render(rowsOf(t, mustSQL(t, s, "SELECT k, sum(b) AS s FROM lakehouse.o.v GROUP BY k")), "k", "s"), want)

	mustSQL(t, s, "INSERT INTO lakehouse.o.v VALUES ('edge', 1), ('neg', -1)")
	for _, q := range []string{
		"SELECT k, sum(b) FROM lakehouse.o.v WHERE k = 'edge' GROUP BY k", // MaxInt64 + 1 wrapped to MinInt64
		"SELECT sum(b) FROM lakehouse.o.v WHERE k = 'neg'",                // MinInt64 - 1 wrapped to MaxInt64
	} {
		_, err := sqlRowsErr(s, q)
		if err == nil || !strings.Contains(err.Error(), "ARITHMETIC_OVERFLOW") {
			t.Fatalf("%s: got %v, want ARITHMETIC_OVERFLOW", q, err)
		}
	}
	// The same sum over doubles is what the error message offers.
	got := rowsOf(t, mustSQL(t, s, "SELECT sum(CAST(b AS double)) AS s FROM lakehouse.o.v WHERE k = 'edge'"))
	if got[0]["s"] != float64(math.MaxInt64)+1 {
		t.Fatalf("double sum %v, want %v", got[0]["s"], float64(math.MaxInt64)+1)
	}
}

// sqlRowsErr runs q and collects its rows, returning the error of either step.
func sqlRowsErr(s *engine.Session, q string) ([]engine.Row, error) {
	df, err := s.SQL(q)
	if err != nil {
		return nil, err
	}
	return df.Rows(context.Background())
}
