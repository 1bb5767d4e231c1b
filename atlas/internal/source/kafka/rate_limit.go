package kafka

import (
	"math"
)

// rateLimit caps the batch [from, until) at about limit offsets in total,
// splitting the limit across partitions in proportion to each partition's
// lag, exactly as Spark's KafkaMicroBatchStream.rateLimit does: a partition
// with lag size gets floor(limit*size/total) offsets, or 1 when that share
// is below one so that small partitions are never starved (so the total can
// fall a little short of the limit, or pass it by at most one offset per
// partition when many partitions have tiny lags).
//
// begin gives the start of every partition in until; a partition whose
// begin is at or past its until keeps its until.
func rateLimit(limit int64, begin, until Offsets) Offsets {
	var total float64
	until.each(func(t string, p int32, end int64) {
		if b, ok := begin.get(t, p); ok && end > b {
			total += float64(end - b)
		}
	})
	if total < 1 {
		return until
	}
	out := make(Offsets, len(until))
	until.each(func(t string, p int32, end int64) {
		b, ok := begin.get(t, p)
		if !ok || end <= b {
			out.set(t, p, end)
			return
		}
		prorate := float64(limit) * (float64(end-b) / total)
		var n int64
		if prorate < 1 {
			n = int64(math.Ceil(prorate))
		} else {
			n = int64(math.Floor(prorate))
		}
		off := int64(math.MaxInt64)
		if n <= math.MaxInt64-b {
			off = b + n
		}
		out.set(t, p, min(end, off))
	})
	return out
}
