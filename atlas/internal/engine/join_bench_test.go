package engine_test

import (
	"context"
	"math/rand"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// BenchmarkBatchJoin joins 200,000 rows with 50,000 on an int key (with a
// null key every sixth row) plus a range condition, left outer.
//
//	go test -run '^$' -bench BenchmarkBatchJoin -benchtime 3x ./atlas/
func BenchmarkBatchJoin(b *testing.B) {
	t := &testing.T{}
	s := engine.Builder().AppName("bench").Config(engine.ConfHome, b.TempDir()).GetOrCreate()
	rng := rand.New(rand.NewSource(1))
	left, right := randomJoinRows(rng, 200000), randomJoinRows(rng, 50000)
	for i := range right {
		k := int64(i % 40000)
		right[i].k = &k
	}
	for i := range left {
		if left[i].k != nil {
			k := int64(rng.Intn(60000))
			left[i].k = &k
		}
	}
	l := joinFrame(t, s, [3]string{"lk", "ls", "lv"}, left)
	r := joinFrame(t, s, [3]string{"rk", "rs", "rv"}, right)
	df := l.Join(r, engine.Col("lk").Eq(engine.Col("rk")).And(engine.Col("lv").Leq(engine.Col("rv").Plus(5))), "left")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n, err := df.Count(context.Background())
		if err != nil || n == 0 {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(len(left)+len(right))*float64(b.N)/b.Elapsed().Seconds(), "inputrows/s")
}
