package atlas

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestNilQueryHandleSaysHowToGetTheQueryBack: a handle a previous cell
// stored in a package variable is nil in the next cell (GoNB keeps the
// declaration, not the value). Every method answers without a panic, the
// ones with an error with ErrNilQuery, which names Streams().Get.
func TestNilQueryHandleSaysHowToGetTheQueryBack(t *testing.T) {
	var q *StreamingQuery
	for name, call := range map[string]func() error{
		"Stop":                    q.Stop,
		"AwaitTermination":        q.AwaitTermination,
		"AwaitTerminationContext": func() error { return q.AwaitTerminationContext(context.Background()) },
		"AwaitTerminationTimeout": func() error { _, err := q.AwaitTerminationTimeout(time.Millisecond); return err },
		"ProcessAllAvailable":     q.ProcessAllAvailable,
		"Exception":               q.Exception,
		"Watch":                   func() error { return q.Watch(context.Background(), time.Millisecond) },
		"ExplainString":           func() error { _, err := q.ExplainString(true); return err },
	} {
		if err := call(); !errors.Is(err, ErrNilQuery) {
			t.Errorf("%s on a nil handle: %v, want ErrNilQuery", name, err)
		}
	}
	if !strings.Contains(ErrNilQuery.Error(), "spark.Streams().Get(name)") {
		t.Errorf("ErrNilQuery does not name the fix: %v", ErrNilQuery)
	}
	if st := q.Status(); st.Message != ErrNilQuery.Error() {
		t.Errorf("Status on a nil handle: %+v", st)
	}
	if q.IsActive() || q.ID() != "" || q.RunID() != "" || q.Name() != "" || q.CheckpointLocation() != "" ||
		q.LastProgress() != nil || q.RecentProgress() != nil || q.Totals() != (QueryTotals{}) {
		t.Error("a nil handle reports a query")
	}
	q.Explain() // prints the error, no panic
}
