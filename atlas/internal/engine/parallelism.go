package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// ConfStreamingParallelism is how many goroutines run a micro-batch's
// stateless operators (from_json, casts, projections, filters, the
// watermark) at once: a number >= 1, default one per core (GOMAXPROCS).
// 1 runs them on one goroutine, as before Atlas spread them. The
// aggregation, the late rows and the sink still see the rows in the
// source's order, so results do not depend on it. Read when a query
// starts.
const ConfStreamingParallelism = "atlas.streaming.parallelism"

// ConfStreamingChunkRows is how many rows of a source record one goroutine
// takes at a time when an aggregation follows the operators (default
// 16384).
const ConfStreamingChunkRows = "atlas.streaming.chunkRows"

// operatorParallelism reads ConfStreamingParallelism and
// ConfStreamingChunkRows (0 for the defaults).
func (s *Session) operatorParallelism() (workers, chunkRows int, err error) {
	for _, c := range []struct {
		key string
		dst *int
	}{{ConfStreamingParallelism, &workers}, {ConfStreamingChunkRows, &chunkRows}} {
		v := strings.TrimSpace(s.confValue(c.key))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, 0, fmt.Errorf("%s = %q: want a whole number >= 1, or unset it for the default", c.key, v)
		}
		*c.dst = n
	}
	return workers, chunkRows, nil
}
