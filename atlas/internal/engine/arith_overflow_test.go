package engine_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// Spark 4 (spark.sql.ansi.enabled=true by default) fails integer + and -
// that leave the type's range with ARITHMETIC_OVERFLOW (SQL reference,
// "ANSI Compliance", arithmetic operations), unary minus included
// (Math.negateExact). arrow-go's checked kernels, which Atlas called,
// test an unsigned carry and missed overflows below the range or across
// signs: 9223372036854775807 - (-1) was -9223372036854775808. Expected
// values and which pairs overflow come from math/big over the same pairs.
func TestIntegerAddSubOverflowAsSparkANSI(t *testing.T) {
	s := sqlSession(t)
	mustSQL(t, s, "CREATE NAMESPACE IF NOT EXISTS lakehouse.a")
	mustSQL(t, s, "CREATE TABLE lakehouse.a.p (id int, x bigint, y bigint, i int, j int) USING iceberg")
	r := rand.New(rand.NewPCG(3, 5))
	edges := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64, math.MinInt32, math.MaxInt32}
	pick := func() int64 {
		if r.IntN(2) == 0 {
			return edges[r.IntN(len(edges))]
		}
		return r.Int64() - math.MaxInt64/2
	}
	lit := func(v int64) string {
		if v == math.MinInt64 {
			return "(-9223372036854775807 - 1)"
		}
		return fmt.Sprint(v)
	}
	fits := func(v *big.Int, lo, hi int64) bool { return v.Cmp(big.NewInt(lo)) >= 0 && v.Cmp(big.NewInt(hi)) <= 0 }
	type pair struct{ x, y int64 }
	var inRange []string
	var want []string
	var overflow []string
	for id := range 60 {
		p := pair{pick(), pick()}
		sum := new(big.Int).Add(big.NewInt(p.x), big.NewInt(p.y))
		diff := new(big.Int).Sub(big.NewInt(p.x), big.NewInt(p.y))
		neg := new(big.Int).Neg(big.NewInt(p.x))
		i, j := int64(int32(p.x)), int64(int32(p.y))
		isum := new(big.Int).Add(big.NewInt(i), big.NewInt(j))
		idiff := new(big.Int).Sub(big.NewInt(i), big.NewInt(j))
		row := fmt.Sprintf("(%d, %s, %s, %d, %d)", id, lit(p.x), lit(p.y), i, j)
		for _, q := range []struct {
			expr string
			v    *big.Int
			lo   int64
			hi   int64
		}{
			{"x + y", sum, math.MinInt64, math.MaxInt64},
			{"x - y", diff, math.MinInt64, math.MaxInt64},
			{"-x", neg, math.MinInt64, math.MaxInt64},
			{"i + j", isum, math.MinInt32, math.MaxInt32},
			{"i - j", idiff, math.MinInt32, math.MaxInt32},
		} {
			if !fits(q.v, q.lo, q.hi) {
				overflow = append(overflow, fmt.Sprintf("SELECT %s FROM (SELECT %s AS x, %s AS y, CAST(%d AS int) AS i, CAST(%d AS int) AS j)", q.expr, lit(p.x), lit(p.y), i, j))
				row = ""
			}
		}
		if row != "" {
			inRange = append(inRange, row)
			want = append(want, fmt.Sprintf("id=%d s=%s d=%s n=%s isum=%s id2=%s", id, sum, diff, neg, isum, idiff))
		}
	}
	if len(inRange) < 10 || len(overflow) < 10 {
		t.Fatalf("the pairs do not exercise both sides: %d in range, %d overflowing", len(inRange), len(overflow))
	}
	mustSQL(t, s, "INSERT INTO lakehouse.a.p VALUES "+strings.Join(inRange, ", "))
	sameLines(t, "in-range results", render(rowsOf(t, mustSQL(t, s, "SELECT id, x + y AS s, x - y AS d, -x AS n, i + j AS isum, i - j AS id2 FROM lakehouse.a.p")), "id", "s", "d", "n", "isum", "id2"), want)
	for _, q := range overflow {
		if _, err := sqlRowsErr(s, q); err == nil || !strings.Contains(err.Error(), "ARITHMETIC_OVERFLOW") {
			t.Errorf("%s: got %v, want ARITHMETIC_OVERFLOW", q, err)
		}
	}
}
