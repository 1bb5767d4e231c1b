package rate

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestMicroBatchRowsPerBatch: every batch holds exactly rowsPerBatch
// consecutive values with the batch's timestamp, as Spark's
// rate-micro-batch source; a replayed range yields the same rows.
func TestMicroBatchRowsPerBatch(t *testing.T) {
	ctx := context.Background()
	s, err := NewMicroBatch(map[string]string{"rowsPerBatch": "7", "numPartitions": "2", "startTimestamp": "1000", "advanceMillisPerBatch": "500"})
	if err != nil {
		t.Fatal(err)
	}
	start, _ := s.InitialOffset(ctx)
	for b := int64(0); b < 3; b++ {
		end, err := s.LatestOffset(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		for pass := 0; pass < 2; pass++ {
			seen := map[int64]bool{}
			err := s.GetBatch(ctx, start, end, func(rec arrow.RecordBatch) error {
				ts := rec.Column(0).(*array.Timestamp)
				vs := rec.Column(1).(*array.Int64)
				for i := 0; i < vs.Len(); i++ {
					seen[vs.Value(i)] = true
					if want := arrow.Timestamp((1000 + b*500) * 1000); ts.Value(i) != want {
						t.Fatalf("batch %d value %d: timestamp %d, want %d", b, vs.Value(i), ts.Value(i), want)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for v := b * 7; v < (b+1)*7; v++ {
				if !seen[v] {
					t.Fatalf("batch %d lacks value %d: %v", b, v, seen)
				}
			}
			if len(seen) != 7 {
				t.Fatalf("batch %d has %d values, want 7", b, len(seen))
			}
		}
		start = end
	}
	for opts, want := range map[string]string{"": "'rowsPerBatch' is required", "rowsPerBatch=0": "positive integer", "rowsPerBatch=1,x=2": "unknown option"} {
		m := map[string]string{}
		for _, kv := range strings.Split(opts, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m[k] = v
			}
		}
		if _, err := NewMicroBatch(m); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("options %q: error %v, want one saying %q", opts, err, want)
		}
	}
}
