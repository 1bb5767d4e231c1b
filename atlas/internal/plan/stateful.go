package plan

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/sink"
)

// checkStatefulStreaming applies Spark's UnsupportedOperationChecker rules
// for the stateful operators beyond plain aggregation: distinct
// aggregates, deduplication and session windows.
func checkStatefulStreaming(s *Shape, mode sink.OutputMode) error {
	if s.Agg != nil {
		for _, a := range s.Agg.Aggs {
			if a.IsDistinct() {
				return fmt.Errorf("distinct aggregations are not supported on streaming DataFrames/Datasets: %s; consider using ApproxCountDistinct() (approx_count_distinct) instead", a.Name())
			}
		}
	}
	return nil
}
