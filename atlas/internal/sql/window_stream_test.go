package sql_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sink"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// TestWindowRefusedOnStream checks that a non-time window function over a
// stream is refused when the query starts, with Spark's error.
func TestWindowRefusedOnStream(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "col1", Type: arrow.FixedWidthTypes.Timestamp_us, Nullable: true},
		{Name: "col2", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	stream := func(*parser.Name) (plan.Node, error) { return &plan.StreamScan{Format: "memory", Out: schema}, nil }
	st, err := parser.Parse("SELECT row_number() OVER (PARTITION BY col1 ORDER BY col2) AS rn_col, col1, col2 FROM events")
	if err != nil {
		t.Fatal(err)
	}
	n, err := sql.PlanSelect(st.(*parser.Select), stream)
	if err != nil {
		t.Fatal(err)
	}
	_, err = plan.ValidateStreaming(n, sink.Append)
	want := "[NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING] Window function is not supported in ROW_NUMBER() (as column `rn_col`) on streaming DataFrames/Datasets. " +
		"Structured Streaming only supports time-window aggregation using the WINDOW function. " +
		"(window specification: (PARTITION BY COL1 ORDER BY COL2 ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW))"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	// A time window over the same stream is not refused for this reason.
	st, _ = parser.Parse("SELECT window(col1, '1 minute'), count(*) FROM events GROUP BY window(col1, '1 minute')")
	n, err = sql.PlanSelect(st.(*parser.Select), stream)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.ValidateStreaming(n, sink.Update); err != nil && strings.Contains(err.Error(), "NON_TIME_WINDOW") {
		t.Fatalf("time window refused: %v", err)
	}
}
