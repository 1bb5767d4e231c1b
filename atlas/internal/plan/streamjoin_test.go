package plan

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

func wmField(name string) arrow.Field {
	return arrow.Field{Name: name, Type: types.Timestamp, Nullable: true,
		Metadata: arrow.NewMetadata([]string{expr.MetaWatermarkDelay}, []string{"1000"})}
}

// TestStateValueWatermark solves join conditions for the state watermark
// by hand, as Spark's StreamingJoinHelper does (event watermark 1,000,000
// ms; a non-strict comparison keeps the boundary row: minus 1 ms).
func TestStateValueWatermark(t *testing.T) {
	left := &LocalScan{Name: "l", Out: arrow.NewSchema([]arrow.Field{wmField("lt"), {Name: "lk", Type: arrow.PrimitiveTypes.Int64}}, nil)}
	right := &LocalScan{Name: "r", Out: arrow.NewSchema([]arrow.Field{wmField("rt"), {Name: "rk", Type: arrow.PrimitiveTypes.Int64}}, nil)}
	col, lit := expr.Col, func(d time.Duration) expr.Expr { return expr.Lit(d) }
	add := func(a, b expr.Expr) expr.Expr { return expr.Bin("+", a, b) }
	sub := func(a, b expr.Expr) expr.Expr { return expr.Bin("-", a, b) }
	const wm = 1000000
	cases := []struct {
		name        string
		cond        expr.Expr
		left, right int64 // -1<<62: none
	}{
		{"lt > rt", expr.Bin(">", col("lt"), col("rt")), wm, none},
		{"lt >= rt", expr.Bin(">=", col("lt"), col("rt")), wm - 1, none},
		{"lt > rt + 10s", expr.Bin(">", col("lt"), add(col("rt"), lit(10*time.Second))), wm + 10000, none},
		{"lt > rt - 10s", expr.Bin(">", col("lt"), sub(col("rt"), lit(10*time.Second))), wm - 10000, none},
		{"rt < lt + 10s", expr.Bin("<", col("rt"), add(col("lt"), lit(10*time.Second))), wm - 10000, none},
		{"lt < rt", expr.Bin("<", col("lt"), col("rt")), none, wm},
		{"lk = rk AND lt BETWEEN rt AND rt + 1h", expr.Bin("AND", expr.Bin("=", col("lk"), col("rk")),
			expr.Bin("AND", expr.Bin(">=", col("lt"), col("rt")), expr.Bin("<=", col("lt"), add(col("rt"), lit(time.Hour))))),
			wm - 1, wm - 3600000 - 1},
		{"two bounds: the smaller", expr.Bin("AND", expr.Bin(">", col("lt"), add(col("rt"), lit(10*time.Second))), expr.Bin(">", col("lt"), sub(col("rt"), lit(time.Minute)))), wm - 60000, none},
		{"no time column", expr.Bin("=", col("lk"), col("rk")), none, none},
		{"the state time twice", expr.Bin(">", col("lt"), add(col("rt"), sub(col("lt"), col("lt")))), none, none},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j, err := NewJoin(left, right, LeftOuterJoin, c.cond)
			if err != nil {
				t.Fatal(err)
			}
			for side, want := range []int64{c.left, c.right} {
				got, ok := j.StateValueWatermark(side, wm)
				if want == none && ok {
					t.Fatalf("side %d: got state watermark %d, want none", side, got)
				}
				if want != none && (!ok || got != want) {
					t.Fatalf("side %d: got %d (ok %v), want %d", side, got, ok, want)
				}
			}
		})
	}
}

const none = -1 << 62
