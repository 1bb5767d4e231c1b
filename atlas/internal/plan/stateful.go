package plan

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
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
		if mode == sink.Update {
			// Spark's guide (Types of time windows, 3.2 to 4.0): with a
			// session window in a streaming query, "Update mode as output
			// mode is not supported". Update would emit a session each
			// time it grows and leave the rows of sessions later merged
			// into a bigger one behind in the sink: stale rows, silently.
			for _, k := range s.Agg.Keys {
				if b, err := k.Bind(s.Agg.In.Schema()); err == nil {
					if _, ok := expr.AsSession(b); ok {
						return fmt.Errorf("update output mode is not supported for session window on streaming DataFrames/Datasets (Spark's rule: a session merged into a bigger one would leave its earlier row in the sink): use OutputMode(\"append\") with a watermark, which emits each session once it is closed, or \"complete\"")
					}
				}
			}
		}
		if len(s.Agg.Keys) == 1 {
			// Spark's guide (Types of time windows): "There should be at
			// least one column in addition to session_window in grouping
			// key" of a streaming query; batch queries may group by the
			// session window alone.
			if b, err := s.Agg.Keys[0].Bind(s.Agg.In.Schema()); err == nil {
				if _, ok := expr.AsSession(b); ok {
					return fmt.Errorf("global aggregation with session window in streaming query is not supported: group by at least one column besides session_window, e.g. GroupBy(SessionWindow(Col(\"timestamp\"), \"5 minutes\"), Col(\"userId\"))")
				}
			}
		}
	}
	if d := s.Dedup; d != nil && d.WithinWatermark && d.EventTime < 0 {
		return fmt.Errorf("dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without watermark: call WithWatermark(\"<event time column>\", \"<delay>\") before it")
	}
	return nil
}

// addDedup places a deduplication before the aggregation.
func (s *Shape) addDedup(d *Deduplicate) error {
	switch {
	case s.Agg != nil:
		return fmt.Errorf("%s after groupBy is not supported: deduplicate the input before aggregating", d.Describe())
	case s.Sort != nil || s.Limit != nil:
		return fmt.Errorf("%s after orderBy/limit is not supported", d.Describe())
	case s.Dedup != nil:
		return fmt.Errorf("one deduplication per query is supported: merge the two dropDuplicates into one")
	}
	s.Dedup = d
	s.Pre = append(s.Pre, d)
	return nil
}
