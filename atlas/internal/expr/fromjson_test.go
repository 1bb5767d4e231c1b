package expr

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestFromJSONBoundIsSafeForConcurrentUse evaluates one bound from_json
// from several goroutines at once, each on its own rows: every result must
// hold exactly the values its own rows were encoded from.
func TestFromJSONBoundIsSafeForConcurrentUse(t *testing.T) {
	in := arrow.NewSchema([]arrow.Field{{Name: "json", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	parsed := arrow.NewSchema([]arrow.Field{
		{Name: "wiki", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bytes", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b, err := (&FromJSON{X: Col("json"), Schema: parsed}).Bind(in)
	if err != nil {
		t.Fatal(err)
	}
	type edit struct {
		Wiki  string `json:"wiki"`
		Bytes int64  `json:"bytes"`
	}
	const workers, rounds = 4, 25
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := NewCtx(context.Background())
			for r := range rounds {
				n := 50 + 37*w + r // a different row count per call
				want := make([]edit, n)
				sb := array.NewStringBuilder(memory.DefaultAllocator)
				for i := range want {
					want[i] = edit{Wiki: fmt.Sprintf("w%d-%d-%d", w, r, i), Bytes: int64(w*100000 + r*1000 + i)}
					text, _ := json.Marshal(want[i])
					sb.Append(string(text))
				}
				col := sb.NewArray()
				sb.Release()
				rec := array.NewRecordBatch(in, []arrow.Array{col}, int64(n))
				col.Release()
				out, err := b.Eval(c, rec)
				rec.Release()
				if err != nil {
					errs[w] = err
					return
				}
				st := out.(*array.Struct)
				wikis, sizes := st.Field(0).(*array.String), st.Field(1).(*array.Int64)
				if st.Len() != n {
					errs[w] = fmt.Errorf("round %d: %d rows, want %d", r, st.Len(), n)
				}
				for i := 0; errs[w] == nil && i < n; i++ {
					if wikis.Value(i) != want[i].Wiki || sizes.Value(i) != want[i].Bytes {
						errs[w] = fmt.Errorf("round %d row %d: got (%s, %d), want %+v", r, i, wikis.Value(i), sizes.Value(i), want[i])
					}
				}
				out.Release()
				if errs[w] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", w, err)
		}
	}
}
