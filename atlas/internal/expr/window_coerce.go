package expr

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// windowTimeColumn is Spark's implicit cast of the time column of window
// and session_window (TimeWindow and SessionWindow take TIMESTAMP or
// TIMESTAMP_NTZ with ImplicitCastInputTypes): a string becomes a
// timestamp as an ANSI cast reads it (malformed text fails the query),
// a date its midnight.
func windowTimeColumn(t Bound) Bound {
	switch t.Type().ID() {
	case arrow.STRING, arrow.DATE32:
		return &castBound{x: t, typ: types.Timestamp, mode: EvalANSI}
	}
	return t
}
