package exec

import (
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// int64Records returns a reader yielding n one-column records holding
// 0..n-1, built with mem, each released after yield as a source does.
func int64Records(mem memory.Allocator, n int, yielded *int) func(func(arrow.RecordBatch) error) error {
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return func(yield func(arrow.RecordBatch) error) error {
		for i := 0; i < n; i++ {
			b := array.NewInt64Builder(mem)
			b.Append(int64(i))
			col := b.NewArray()
			b.Release()
			rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1)
			col.Release()
			err := yield(rec)
			rec.Release()
			*yielded++
			if err != nil {
				return fmt.Errorf("record %d: %w", i, err)
			}
		}
		return nil
	}
}

func TestOverlapKeepsOrderAndReleases(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var yielded int
	var got []int64
	err := overlap(int64Records(mem, 100, &yielded), func(rec arrow.RecordBatch) error {
		got = append(got, rec.Column(0).(*array.Int64).Value(0))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 100 {
		t.Fatalf("consumed %d records, want 100", len(got))
	}
	for i, v := range got {
		if v != int64(i) {
			t.Fatalf("record %d holds %d: order not kept", i, v)
		}
	}
}

func TestOverlapStopsOnConsumerError(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	boom := errors.New("boom")
	var yielded, consumed int
	err := overlap(int64Records(mem, 1000, &yielded), func(rec arrow.RecordBatch) error {
		consumed++
		if rec.Column(0).(*array.Int64).Value(0) == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("overlap returned %v, want the consumer's error", err)
	}
	if consumed != 11 {
		t.Fatalf("consumer saw %d records, want 11 (none after its error)", consumed)
	}
	// At the failure the channel holds overlapDepth records and the reader
	// may be sending one more; the next yield sees the failure.
	if yielded > 11+overlapDepth+2 {
		t.Fatalf("the reader went on for %d records after the consumer failed at record 10", yielded)
	}
}

func TestOverlapReturnsReaderError(t *testing.T) {
	bad := errors.New("fetch failed")
	err := overlap(func(yield func(arrow.RecordBatch) error) error { return bad }, func(arrow.RecordBatch) error { return nil })
	if !errors.Is(err, bad) {
		t.Fatalf("overlap returned %v, want the reader's error", err)
	}
}
