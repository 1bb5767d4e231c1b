package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// The edits topic of these tests: JSON objects with a wiki name, a few
// malformed records and a few without a wiki (both group under null, as
// Spark's permissive from_json gives).
const (
	wikiTopic  = "wiki_edits"
	wikiSchema = "wiki string, user string, bytes int"
	nullWiki   = "<null>"
)

// produceWiki writes n edits, spread over the topic's 3 partitions, and
// returns them as read back with a plain kgo client.
func produceWiki(t *testing.T, e *env, n int) [][]byte {
	t.Helper()
	ctx := context.Background()
	if err := stack.EnsureTopic(ctx, []string{e.brokers}, wikiTopic, 3); err != nil {
		t.Fatal(err)
	}
	cl, err := stack.NewClient([]string{e.brokers}, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	wikis := []string{"enwiki", "dewiki", "frwiki", "commonswiki", "wikidatawiki", "jawiki", "eswiki"}
	rng := rand.New(rand.NewSource(42))
	recs := make([]*kgo.Record, n)
	for i := range recs {
		var v string
		switch {
		case i%211 == 0:
			v = `{"wiki": "enwiki", "user": ` // malformed
		case i%157 == 0:
			v = `{"user": "anonymous"}` // no wiki
		default:
			v = fmt.Sprintf(`{"wiki": %q, "user": "u%d", "bytes": %d}`, wikis[rng.Intn(len(wikis))], rng.Intn(100), rng.Intn(5000))
		}
		recs[i] = &kgo.Record{Topic: wikiTopic, Partition: int32(i % 3), Value: []byte(v)}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return readValues(t, e, n)
}

// readValues reads the topic's n record values back with a plain client.
func readValues(t *testing.T, e *env, n int) [][]byte {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.brokers), kgo.ConsumeTopics(wikiTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out [][]byte
	for len(out) < n && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { out = append(out, r.Value) })
	}
	if len(out) != n {
		t.Fatalf("read back %d records, produced %d", len(out), n)
	}
	return out
}

// wikiReference counts edits per wiki with encoding/json.
func wikiReference(values [][]byte) map[string]int64 {
	want := map[string]int64{}
	for _, v := range values {
		var ev struct {
			Wiki *string `json:"wiki"`
		}
		key := nullWiki
		if json.Unmarshal(v, &ev) == nil && ev.Wiki != nil {
			key = *ev.Wiki
		}
		want[key]++
	}
	return want
}

// wikiCounts reads (wiki, count) rows.
func wikiCounts(ctx context.Context, df *engine.DataFrame) (map[string]int64, error) {
	rows, err := df.Rows(ctx)
	if err != nil {
		return nil, err
	}
	got := map[string]int64{}
	for _, r := range rows {
		key := nullWiki
		if w, ok := r["wiki"].(string); ok {
			key = w
		}
		if _, dup := got[key]; dup {
			return nil, fmt.Errorf("wiki %q appears twice", key)
		}
		n, ok := r["count"].(int64)
		if !ok {
			return nil, fmt.Errorf("count of %q is %T", key, r["count"])
		}
		got[key] = n
	}
	return got, nil
}

func sameCounts(got, want map[string]int64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d wikis, want %d: got %v, want %v", len(got), len(want), got, want)
	}
	for k, w := range want {
		if got[k] != w {
			return fmt.Errorf("wiki %q counted %d, want %d (got %v)", k, got[k], w, got)
		}
	}
	return nil
}

// parsedEdits is the course's parsed stream: one DataFrame that several
// queries use.
func parsedEdits(s *engine.Session) *engine.DataFrame {
	return s.ReadStream().Format("kafka").
		Option("subscribe", wikiTopic).
		Option("startingOffsets", "earliest").
		Option("maxOffsetsPerTrigger", 700).
		Load().
		SelectExpr("CAST(value AS STRING) AS json").
		Select(engine.FromJSON(engine.Col("json"), wikiSchema).Alias("data")).
		Select("data.*")
}

// TestQueriesFromOneDataFrame starts 2 and 4 queries at once from one
// DataFrame (Kafka, from_json, groupBy(wiki).count()): each must count
// exactly what a plain Kafka client reads, sharing no decoder, source or
// state with the others.
func TestQueriesFromOneDataFrame(t *testing.T) {
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d queries", n), func(t *testing.T) {
			e := newEnv(t)
			const edits = 5000
			want := wikiReference(produceWiki(t, e, edits))
			counts := parsedEdits(e.session).GroupBy("wiki").Count()
			queries := make([]*engine.StreamingQuery, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					queries[i], errs[i] = counts.WriteStream().
						Format("memory").
						QueryName(fmt.Sprintf("wiki_counts_%d", i)).
						OutputMode("complete").
						Trigger(engine.AvailableNow()).
						Option("checkpointLocation", filepath.Join(e.home, "ck", fmt.Sprint(i))).
						Progress(false).
						Start()
				}()
			}
			wg.Wait()
			for i, q := range queries {
				if errs[i] != nil {
					t.Fatalf("query %d: %v", i, errs[i])
				}
				if err := q.AwaitTermination(); err != nil {
					t.Fatalf("query %d: %v", i, err)
				}
			}
			for i, q := range queries {
				var input int64
				for _, p := range q.RecentProgress() {
					input += p.NumInputRows
				}
				if input != edits {
					t.Errorf("query %d read %d rows, want %d", i, input, edits)
				}
				got, err := wikiCounts(context.Background(), e.session.Table(fmt.Sprintf("wiki_counts_%d", i)))
				if err != nil {
					t.Fatalf("query %d: %v", i, err)
				}
				if err := sameCounts(got, want); err != nil {
					t.Errorf("query %d: %v", i, err)
				}
			}
		})
	}
}

// TestDataFrameSharedByQueryAndBatchActions uses one streaming DataFrame
// in two queries (an aggregation and a foreachBatch) while a batch
// DataFrame with from_json is collected at the same time from the test's
// goroutines and from inside every micro-batch.
func TestDataFrameSharedByQueryAndBatchActions(t *testing.T) {
	e := newEnv(t)
	const edits = 4000
	values := produceWiki(t, e, edits)
	want := wikiReference(values)

	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for _, v := range values {
		sb.Append(string(v))
	}
	col := sb.NewArray()
	sb.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "json", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(edits))
	col.Release()
	batchCounts := e.session.CreateDataFrame(schema, []arrow.RecordBatch{rec}).
		Select(engine.FromJSON(engine.Col("json"), wikiSchema).Alias("data")).
		Select("data.*").
		GroupBy("wiki").Count()
	rec.Release()

	parsed := parsedEdits(e.session)
	agg, err := parsed.GroupBy("wiki").Count().WriteStream().
		Format("memory").QueryName("wiki_agg").OutputMode("complete").
		Trigger(engine.AvailableNow()).
		Option("checkpointLocation", filepath.Join(e.home, "ck", "agg")).
		Progress(false).Start()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	perBatch := map[string]int64{}
	var inBatchErr error
	fb, err := parsed.WriteStream().
		ForeachBatch(func(batch *engine.DataFrame, _ int64) error {
			rows, err := batch.Rows(context.Background())
			if err != nil {
				return err
			}
			got, err := wikiCounts(context.Background(), batchCounts)
			mu.Lock()
			defer mu.Unlock()
			for _, r := range rows {
				key := nullWiki
				if w, ok := r["wiki"].(string); ok {
					key = w
				}
				perBatch[key]++
			}
			if err == nil {
				err = sameCounts(got, want)
			}
			if err != nil && inBatchErr == nil {
				inBatchErr = err
			}
			return nil
		}).
		Trigger(engine.AvailableNow()).
		Option("checkpointLocation", filepath.Join(e.home, "ck", "fb")).
		Progress(false).Start()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	batchErrs := make([]error, 2)
	for i := range batchErrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				got, err := wikiCounts(context.Background(), batchCounts)
				if err == nil {
					err = sameCounts(got, want)
				}
				if err != nil {
					batchErrs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range batchErrs {
		if err != nil {
			t.Errorf("batch action %d: %v", i, err)
		}
	}
	if err := agg.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if err := fb.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	got, err := wikiCounts(context.Background(), e.session.Table("wiki_agg"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sameCounts(got, want); err != nil {
		t.Errorf("streaming aggregation: %v", err)
	}
	if err := sameCounts(perBatch, want); err != nil {
		t.Errorf("foreachBatch rows: %v", err)
	}
	if inBatchErr != nil {
		t.Errorf("batch action inside foreachBatch: %v", inBatchErr)
	}
}
