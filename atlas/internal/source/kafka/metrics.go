package kafka

import (
	"strconv"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// Keys of the metrics the source reports in the progress's
// sources[].metrics, as Spark's KafkaMicroBatchStream.metrics.
const (
	MetricMinOffsetsBehindLatest = "minOffsetsBehindLatest"
	MetricMaxOffsetsBehindLatest = "maxOffsetsBehindLatest"
	MetricAvgOffsetsBehindLatest = "avgOffsetsBehindLatest"
)

var _ source.ProgressMetrics = (*Source)(nil)

// ProgressMetrics returns, as Spark does, how many offsets each partition
// of latest (the end of the data available) is ahead of end (where the
// batch stopped reading): the minimum and maximum as integers and the mean
// as Java's Double.toString writes it ("2.5", "0.0", "1.0E7"). Partitions
// of latest that end does not name are left out (Spark has every one: its
// end offsets name every partition it lists). Nil when either offset is
// empty or no partition is in both.
func (s *Source) ProgressMetrics(end, latest source.Offset) map[string]string {
	consumed, err := ParseOffset(end)
	if err != nil || consumed == nil {
		return nil
	}
	avail, err := ParseOffset(latest)
	if err != nil || avail == nil {
		return nil
	}
	return offsetsBehind(consumed, avail)
}

func offsetsBehind(consumed, avail Offsets) map[string]string {
	var (
		n           int
		sum, lo, hi int64
	)
	avail.each(func(t string, p int32, off int64) {
		c, ok := consumed.get(t, p)
		if !ok {
			return
		}
		d := off - c
		if n == 0 || d < lo {
			lo = d
		}
		if n == 0 || d > hi {
			hi = d
		}
		sum += d
		n++
	})
	if n == 0 {
		return nil
	}
	return map[string]string{
		MetricMinOffsetsBehindLatest: strconv.FormatInt(lo, 10),
		MetricMaxOffsetsBehindLatest: strconv.FormatInt(hi, 10),
		MetricAvgOffsetsBehindLatest: numfmt.JavaFloat(float64(sum)/float64(n), 64),
	}
}
