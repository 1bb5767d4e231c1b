package state

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// quantileSummary is Spark's QuantileSummaries (Greenwald-Khanna with a
// head buffer of recent values), the state of percentile_approx: a query
// for quantile q returns a value whose rank is within relErr*n of q*n.
type quantileSummary struct {
	relErr  float64
	sampled []gkStats
	count   int64
	head    []float64
}

// gkStats is one sample: value, the minimum rank jump from the previous
// sample (g) and the rank's uncertainty (delta).
type gkStats struct {
	value    float64
	g, delta int64
}

// Spark's QuantileSummaries defaults.
const (
	gkCompressThreshold = 10000
	gkHeadSize          = 50000
)

func (q *quantileSummary) insert(x float64) {
	q.head = append(q.head, x)
	if len(q.head) >= gkHeadSize {
		q.flushHead()
		if len(q.sampled) >= gkCompressThreshold {
			q.compress()
		}
	}
}

// flushHead merges the sorted head buffer into the samples
// (withHeadBufferInserted).
func (q *quantileSummary) flushHead() {
	if len(q.head) == 0 {
		return
	}
	sorted := slices.Clone(q.head)
	slices.Sort(sorted)
	out := make([]gkStats, 0, len(q.sampled)+len(sorted))
	cur := q.count
	si := 0
	for oi, x := range sorted {
		for si < len(q.sampled) && q.sampled[si].value <= x {
			out = append(out, q.sampled[si])
			si++
		}
		cur++
		var delta int64
		if len(out) > 0 && !(si == len(q.sampled) && oi == len(sorted)-1) {
			delta = int64(math.Floor(2 * q.relErr * float64(cur)))
		}
		out = append(out, gkStats{value: x, g: 1, delta: delta})
	}
	out = append(out, q.sampled[si:]...)
	q.sampled, q.count, q.head = out, cur, q.head[:0]
}

// compress is the GK COMPRESS step (compressImmut).
func (q *quantileSummary) compress() {
	q.flushHead()
	s := q.sampled
	if len(s) == 0 {
		return
	}
	threshold := 2 * q.relErr * float64(q.count)
	res := make([]gkStats, 0, len(s))
	head := s[len(s)-1]
	for i := len(s) - 2; i >= 1; i-- {
		if float64(s[i].g+head.g+head.delta) < threshold {
			head.g += s[i].g
		} else {
			res = append(res, head)
			head = s[i]
		}
	}
	res = append(res, head)
	if s[0].value <= head.value && len(s) > 1 {
		res = append(res, s[0])
	}
	slices.Reverse(res)
	q.sampled = res
}

// query returns the approximate quantile p; ok is false without values.
func (q *quantileSummary) query(p float64) (float64, bool) {
	q.compress()
	s := q.sampled
	if len(s) == 0 {
		return 0, false
	}
	if p <= q.relErr {
		return s[0].value, true
	}
	if p >= 1-q.relErr {
		return s[len(s)-1].value, true
	}
	rank := int64(math.Ceil(p * float64(q.count)))
	var maxGD int64
	for _, x := range s {
		maxGD = max(maxGD, x.g+x.delta)
	}
	target := maxGD / 2
	var minRank int64
	for _, x := range s[:len(s)-1] {
		minRank += x.g
		maxRank := minRank + x.delta
		if maxRank-target <= rank && rank <= minRank+target {
			return x.value, true
		}
	}
	return s[len(s)-1].value, true
}

func (q *quantileSummary) encode() []byte {
	out := make([]byte, 0, 24+len(q.sampled)*24+len(q.head)*8)
	out = binary.LittleEndian.AppendUint64(out, uint64(q.count))
	out = binary.LittleEndian.AppendUint64(out, uint64(len(q.sampled)))
	out = binary.LittleEndian.AppendUint64(out, uint64(len(q.head)))
	for _, x := range q.sampled {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x.value))
		out = binary.LittleEndian.AppendUint64(out, uint64(x.g))
		out = binary.LittleEndian.AppendUint64(out, uint64(x.delta))
	}
	for _, x := range q.head {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
	}
	return out
}

func decodeQuantileSummary(b []byte, relErr float64) (*quantileSummary, error) {
	bad := errors.New("percentile_approx: corrupt state")
	if len(b) < 24 {
		return nil, bad
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }
	ns, nh := int(u(1)), int(u(2))
	if ns < 0 || nh < 0 || len(b) != 24+24*ns+8*nh {
		return nil, bad
	}
	q := &quantileSummary{relErr: relErr, count: int64(u(0)), sampled: make([]gkStats, ns), head: make([]float64, nh)}
	for i := range ns {
		q.sampled[i] = gkStats{value: math.Float64frombits(u(3 + 3*i)), g: int64(u(4 + 3*i)), delta: int64(u(5 + 3*i))}
	}
	for i := range nh {
		q.head[i] = math.Float64frombits(u(3 + 3*ns + i))
	}
	return q, nil
}

// newPercentileAcc is percentile_approx: Spark's ApproximatePercentile
// with relative error 1/accuracy; the result has the input's type (the
// summary's double converted back, as Spark does).
func newPercentileAcc(a *expr.BoundAgg) accumulator {
	relErr := 1.0 / float64(a.Opts.Accuracy)
	pcts, asArray := a.Opts.Percentages, a.Opts.PercentArray
	return &slotAcc[*quantileSummary]{
		fresh:    func() *quantileSummary { return &quantileSummary{relErr: relErr} },
		skipNull: true,
		reader: func(arg arrow.Array) (func(s **quantileSummary, i int), error) {
			val, err := percentileValues(arg)
			if err != nil {
				return nil, err
			}
			return func(s **quantileSummary, i int) { (*s).insert(val(i)) }, nil
		},
		result: func(b array.Builder, s **quantileSummary) {
			if (*s).count+int64(len((*s).head)) == 0 {
				b.AppendNull()
				return
			}
			if !asArray {
				v, _ := (*s).query(pcts[0])
				appendNumber(b, v)
				return
			}
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			for _, p := range pcts {
				v, _ := (*s).query(p)
				appendNumber(lb.ValueBuilder(), v)
			}
		},
		encode: func(s **quantileSummary) []byte { return (*s).encode() },
		decode: func(b []byte) (*quantileSummary, error) { return decodeQuantileSummary(b, relErr) },
	}
}

// percentileValues reads numbers, timestamps and dates as float64.
func percentileValues(a arrow.Array) (func(int) float64, error) {
	if d, ok := a.(*array.Date32); ok {
		return func(i int) float64 { return float64(d.Value(i)) }, nil
	}
	return float64Values(a)
}

// appendNumber appends a summary value in the builder's type.
func appendNumber(b array.Builder, v float64) {
	switch x := b.(type) {
	case *array.Float64Builder:
		x.Append(v)
	case *array.Int64Builder:
		x.Append(int64(v))
	case *array.Int32Builder:
		x.Append(int32(v))
	case *array.Int16Builder:
		x.Append(int16(v))
	case *array.Int8Builder:
		x.Append(int8(v))
	case *array.TimestampBuilder:
		x.Append(arrow.Timestamp(int64(v)))
	case *array.Date32Builder:
		x.Append(arrow.Date32(int32(v)))
	default:
		b.AppendNull()
	}
}
