package engine

import (
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// SessionWindow groups rows into session windows, as Spark's
// session_window(timeColumn, gapDuration), in GroupBy: rows of one group
// whose [time, time+gap) intervals overlap or touch merge into one
// session, output as the column session_window struct<start, end>. The
// gap is a duration string ("5 minutes"), a time.Duration, or a Column
// computed per row (Spark's dynamic gap, e.g. When(...).Otherwise(...)
// giving strings, or an interval column); rows whose gap is null or not
// positive join no session. On a stream, append mode emits a session once
// the watermark passes its end, update mode each session a batch changed.
func SessionWindow(timeCol Column, gap any) Column {
	sw := &expr.SessionWindow{Time: timeCol.e, ParseGap: plan.ParseDuration}
	switch g := gap.(type) {
	case Column:
		if g.err != nil {
			return errCol(g.err)
		}
		if g.agg != nil {
			return errCol(fmt.Errorf("session_window: the gap cannot be an aggregate"))
		}
		sw.GapExpr = g.e
	case time.Duration, string:
		d, err := toDuration(g)
		if err != nil {
			return errCol(fmt.Errorf("session_window: %w", err))
		}
		sw.Gap = d
	default:
		return errCol(fmt.Errorf("session_window: the gap must be a duration string such as \"5 minutes\", a time.Duration or a Column, got %T", gap))
	}
	return timeCol.derive(sw)
}
