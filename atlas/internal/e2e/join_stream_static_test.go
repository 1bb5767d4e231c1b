package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// txn is one record of the stream-static tests' topic.
type txn struct {
	id       int64
	district string // "" is a JSON null
	amount   int64
}

var provinces = map[string]string{"Gasabo": "Kigali", "Huye": "South", "Musanze": "North"}

func testTxns() []txn {
	districts := []string{"Gasabo", "Huye", "Musanze", "Rubavu", ""}
	out := make([]txn, 60)
	for i := range out {
		out[i] = txn{id: int64(i), district: districts[(i*7)%5], amount: int64(i%13) * 100}
	}
	return out
}

func produceTxns(t *testing.T, e *env, topic string, txns []txn) {
	t.Helper()
	ctx := context.Background()
	if err := stack.EnsureTopic(ctx, []string{e.brokers}, topic, 3); err != nil {
		t.Fatal(err)
	}
	cl, err := stack.NewClient([]string{e.brokers}, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, len(txns))
	for i, x := range txns {
		d := "null"
		if x.district != "" {
			d = fmt.Sprintf("%q", x.district)
		}
		recs[i] = &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: []byte(fmt.Sprintf(`{"txn_id": %d, "district": %s, "amount": %d}`, x.id, d, x.amount))}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// districtFrame is the static reference table district -> province.
func districtFrame(t *testing.T, s *engine.Session) *engine.DataFrame {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "district", Type: arrow.BinaryTypes.String}, {Name: "province", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	names := make([]string, 0, len(provinces))
	for d := range provinces {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		b.Field(0).(*array.StringBuilder).Append(d)
		b.Field(1).(*array.StringBuilder).Append(provinces[d])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return s.CreateDataFrame(schema, []arrow.RecordBatch{rec})
}

// TestStreamStaticJoinMatchesReference enriches a Kafka stream with a
// static table, as the course's txns.join(broadcast(districts),
// "district", "left"), over several micro-batches: every streaming row
// once, with its province or null (no such district, or a null district:
// null never equals null). An inner join aggregated per province in
// complete mode gives the reference's totals.
func TestStreamStaticJoinMatchesReference(t *testing.T) {
	e := newEnv(t)
	txns := testTxns()
	produceTxns(t, e, "txns", txns)
	stream := e.session.ReadStream().Format("kafka").Option("subscribe", "txns").
		Option("startingOffsets", "earliest").Option("maxOffsetsPerTrigger", 7).Load().
		Select(engine.FromJSON(engine.Col("value").Cast("string"), "txn_id long, district string, amount long").Alias("j")).
		Select("j.*")
	districts := districtFrame(t, e.session)

	enriched := stream.Join(engine.Broadcast(districts), "district", "left")
	if got := strings.Join(enriched.Columns(), ","); got != "district,txn_id,amount,province" {
		t.Fatalf("columns %s", got)
	}
	var got []string
	batches := 0
	q, err := enriched.WriteStream().Trigger(engine.AvailableNow()).Progress(false).
		Option("checkpointLocation", filepath.Join(e.home, "ck-left")).
		ForeachBatch(func(b *engine.DataFrame, id int64) error {
			rows, err := b.Rows(context.Background())
			if err != nil {
				return err
			}
			batches++
			for _, r := range rows {
				got = append(got, fmt.Sprintf("%v %v %v %v", r["txn_id"], r["district"], r["amount"], r["province"]))
			}
			return nil
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, x := range txns {
		var d, p any
		if x.district != "" {
			d = x.district
			if v, ok := provinces[x.district]; ok {
				p = v
			}
		}
		want = append(want, fmt.Sprintf("%v %v %v %v", x.id, d, x.amount, p))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("left stream-static join: got %d rows, want %d\ngot  %v\nwant %v", len(got), len(want), got, want)
	}
	if batches < 3 {
		t.Fatalf("want several micro-batches (maxOffsetsPerTrigger 7 over %d records), got %d", len(txns), batches)
	}

	// Inner join on a condition, then an aggregation, complete mode.
	totals := stream.Alias("t").Join(districts.Alias("d"), engine.Col("t.district").Eq(engine.Col("d.district")).And(engine.Col("amount").Gt(200))).
		GroupBy("province").Agg(engine.Count(engine.Col("*")).Alias("n"), engine.Sum(engine.Col("amount")).Alias("total"))
	last := map[string]string{}
	q, err = totals.WriteStream().OutputMode("complete").Trigger(engine.AvailableNow()).Progress(false).
		Option("checkpointLocation", filepath.Join(e.home, "ck-agg")).
		ForeachBatch(func(b *engine.DataFrame, id int64) error {
			rows, err := b.Rows(context.Background())
			if err != nil {
				return err
			}
			clear(last)
			for _, r := range rows {
				last[r["province"].(string)] = fmt.Sprintf("%v/%v", r["n"], r["total"])
			}
			return nil
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	ref := map[string][2]int64{}
	for _, x := range txns {
		if p, ok := provinces[x.district]; ok && x.amount > 200 {
			a := ref[p]
			a[0]++
			a[1] += x.amount
			ref[p] = a
		}
	}
	if len(last) != len(ref) {
		t.Fatalf("provinces: got %v, want %v", last, ref)
	}
	for p, a := range ref {
		if last[p] != fmt.Sprintf("%d/%d", a[0], a[1]) {
			t.Fatalf("province %s: got %s, want %d/%d (all: %v)", p, last[p], a[0], a[1], last)
		}
	}
}

// TestStreamJoinRefusals: each join a stream cannot take part in is
// refused at Start, before any side effect, with Spark's reason and the fix.
func TestStreamJoinRefusals(t *testing.T) {
	e := newEnv(t)
	produceTxns(t, e, "txns", testTxns()[:3])
	read := func() *engine.DataFrame {
		return e.session.ReadStream().Format("kafka").Option("subscribe", "txns").Option("startingOffsets", "earliest").Load().
			Select(engine.FromJSON(engine.Col("value").Cast("string"), "txn_id long, district string, amount long, ts timestamp").Alias("j")).
			Select("j.*")
	}
	districts := districtFrame(t, e.session)
	clicks := read().Select(engine.Col("txn_id").Alias("cid"), engine.Col("ts").Alias("clickTime"))
	imps := read().Select(engine.Col("txn_id").Alias("iid"), engine.Col("ts").Alias("impressionTime"))
	onIDs := engine.Col("cid").Eq(engine.Col("iid"))
	cases := []struct {
		name string
		df   *engine.DataFrame
		mode string
		want []string
	}{
		{"stream right outer static", read().Join(districts, "district", "right"), "append", []string{"RightOuter join with a streaming DataFrame/Dataset on the left", "left outer"}},
		{"stream full outer static", read().Join(districts, "district", "full"), "append", []string{"FullOuter joins with streaming DataFrames/Datasets on the left", "left outer"}},
		{"static left outer stream", districts.Join(read(), "district", "left"), "append", []string{"LeftOuter join with a streaming DataFrame/Dataset on the right", "put the stream on the left"}},
		{"static left anti stream", districts.Join(read(), "district", "left_anti"), "append", []string{"LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported"}},
		{"stream-stream update mode", clicks.Join(imps, onIDs), "update", []string{"Join between two streaming DataFrames/Datasets is not supported in update output mode, only in Append output mode", `OutputMode("append")`}},
		{"stream-stream left outer without watermark", clicks.Join(imps, onIDs, "left"), "append", []string{"Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition", "WithWatermark"}},
		{"stream-stream left outer without range", clicks.WithWatermark("clickTime", "1 hour").Join(imps.WithWatermark("impressionTime", "1 hour"), onIDs, "left"), "append", []string{"Stream-stream LeftOuter join", "range condition"}},
		{"stream-stream full outer without range", clicks.WithWatermark("clickTime", "1 hour").Join(imps.WithWatermark("impressionTime", "1 hour"), onIDs, "full"), "append", []string{"Stream-stream FullOuter join"}},
		{"stream-stream semi without watermark", clicks.Join(imps, onIDs, "left_semi"), "append", []string{"Stream-stream LeftSemi join between two streaming DataFrame/Datasets is not supported without a watermark"}},
		{"aggregation after stream-stream in complete mode", clicks.Join(imps, onIDs).GroupBy("cid").Count(), "complete", []string{"Join between two streaming DataFrames/Datasets is not supported in", "only in Append output mode"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.df.Err(); err != nil {
				t.Fatalf("building the DataFrame failed early: %v", err)
			}
			ck := filepath.Join(e.home, "ck-"+strings.ReplaceAll(c.name, " ", "-"))
			_, err := c.df.WriteStream().OutputMode(c.mode).Format("memory").QueryName("refused").
				Option("checkpointLocation", ck).Start()
			if err == nil {
				t.Fatalf("Start succeeded, want a refusal")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not say %q", err, w)
				}
			}
			if _, statErr := filepath.Glob(filepath.Join(ck, "*")); statErr == nil {
				if m, _ := filepath.Glob(filepath.Join(ck, "*")); len(m) > 0 {
					t.Fatalf("a refused query left a checkpoint behind: %v", m)
				}
			}
		})
	}
}

// TestStreamStaticJoinReadsTableEachBatch: as Spark plans each micro-batch
// afresh, a static side read from a catalog table sees the rows committed
// to it since the previous batch. Batch 0 joins txns 0..6 with the table
// as it was; its foreachBatch then adds Rubavu -> West, and from batch 1
// on Rubavu's transactions have a province. A DataFrame of rows held in
// memory (the first test) never changes.
func TestStreamStaticJoinReadsTableEachBatch(t *testing.T) {
	e := newEnv(t)
	txns := testTxns()[:21]
	produceTxns(t, e, "txns", txns)
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.ref",
		"CREATE TABLE lakehouse.ref.districts (district string, province string) USING iceberg",
		"INSERT INTO lakehouse.ref.districts VALUES ('Gasabo', 'Kigali'), ('Huye', 'South'), ('Musanze', 'North')",
	} {
		if _, err := e.session.SQL(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	stream := e.session.ReadStream().Format("kafka").Option("subscribe", "txns").
		Option("startingOffsets", "earliest").Option("maxOffsetsPerTrigger", 7).Load().
		Select(engine.FromJSON(engine.Col("value").Cast("string"), "txn_id long, district string, amount long").Alias("j")).
		Select("j.*")
	enriched := stream.Join(e.session.Table("lakehouse.ref.districts"), "district", "left")
	var got []string
	q, err := enriched.WriteStream().Trigger(engine.AvailableNow()).Progress(false).
		Option("checkpointLocation", filepath.Join(e.home, "ck-refresh")).
		ForeachBatch(func(b *engine.DataFrame, id int64) error {
			rows, err := b.Rows(context.Background())
			if err != nil {
				return err
			}
			for _, r := range rows {
				got = append(got, fmt.Sprintf("%d %v %v", id, r["txn_id"], r["province"]))
			}
			if id == 0 {
				_, err = e.session.SQL("INSERT INTO lakehouse.ref.districts VALUES ('Rubavu', 'West')")
			}
			return err
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	// Kafka spreads the 21 records over 3 partitions; each batch takes 7
	// in offset order per partition, so batch 0 holds the first record of
	// each partition onwards. The reference follows the batch each txn
	// was read in, as reported by the query itself, and checks the
	// province against the table as it was at that batch.
	var want []string
	batchOf := map[string]string{}
	for _, line := range got {
		var id, txn string
		fmt.Sscanf(line, "%s %s", &id, &txn)
		batchOf[txn] = id
	}
	if len(batchOf) != len(txns) {
		t.Fatalf("%d distinct txns written, want %d: %v", len(batchOf), len(txns), got)
	}
	sawBoth := map[bool]bool{}
	for _, x := range txns {
		id := batchOf[fmt.Sprint(x.id)]
		var p any
		if v, ok := provinces[x.district]; ok {
			p = v
		}
		if x.district == "Rubavu" && id != "0" {
			p = "West"
		}
		if x.district == "Rubavu" {
			sawBoth[id == "0"] = true
		}
		want = append(want, fmt.Sprintf("%s %d %v", id, x.id, p))
	}
	if !sawBoth[true] || !sawBoth[false] {
		t.Fatalf("the data should put Rubavu transactions both in batch 0 and later: %v", got)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
