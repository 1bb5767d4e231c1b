package engine_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/avro"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/enginetest"
)

const contractSchema = enginetest.PaymentContractSchema

// TestFromAvroContractStream reads a stream of single-object encoded
// PaymentEvent records, encoded here by the Avro library, mixed with a
// record of another contract (unknown fingerprint), a truncated payload
// and bytes with no header: only the contract's records reach the sink,
// the others are counted in their metrics, and the query keeps running.
func TestFromAvroContractStream(t *testing.T) {
	home := t.TempDir()
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, home).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("payments", "key string, value binary")
	if err != nil {
		t.Fatal(err)
	}
	contract := avro.MustParse(contractSchema)
	other := avro.MustParse(`{"type":"record","name":"PaymentEvent","namespace":"fraudtwin","fields":[{"name":"event_id","type":"string"}]}`)
	good := func(id string, account int64, amount float64) []byte {
		b, err := contract.AppendSingleObject(nil, map[string]any{"event_id": id, "account": account, "amount": amount})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	wrong, _ := other.AppendSingleObject(nil, map[string]any{"event_id": "x"})
	g := good("e2", 8, 2.5)
	rows := [][]any{
		{"k1", good("e1", 7, 10.25)},
		{"k2", wrong},
		{"k3", g[:len(g)-4]},
		{"k4", []byte("not avro at all")},
		{"k5", g},
	}
	for _, r := range rows {
		if err := ms.AddRows(r); err != nil {
			t.Fatal(err)
		}
	}
	opts := map[string]string{"mode": "PERMISSIVE", "framing": "single-object"}
	df := ms.ToDF().
		Select(engine.Col("key"), engine.FromAvro(engine.Col("value"), contractSchema, opts).Alias("e")).
		Where(engine.Col("e").IsNotNull()).
		Select("key", "e.*")
	if err := df.Err(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	q, err := df.WriteStream().Option("checkpointLocation", filepath.Join(home, "ck")).
		Trigger(engine.AvailableNow()).Progress(false).
		ForeachBatch(func(b *engine.DataFrame, _ int64) error {
			rs, err := b.Rows(context.Background())
			mu.Lock()
			for _, r := range rs {
				got = append(got, fmt.Sprintf("%v/%v/%v/%v", r["key"], r["event_id"], r["account"], r["amount"]))
			}
			mu.Unlock()
			return err
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "k1/e1/7/10.25 k5/e2/8/2.5" {
		t.Fatalf("rows %v", got)
	}
	p := q.LastProgress()
	if p == nil || p.ObservedMetrics["numUnknownAvroSchemaRecords"] != 1 || p.ObservedMetrics["numMalformedAvroRecords"] != 2 {
		t.Fatalf("progress metrics %v", p)
	}
	if q.Totals().Malformed != 3 {
		t.Fatalf("totals malformed %d, want 3", q.Totals().Malformed)
	}

	// Spark's default mode, FAILFAST, stops the query and says how not to.
	ms2, _ := s.MemoryStream("payments2", "value binary")
	ms2.AddRows([]any{wrong})
	q, err = ms2.ToDF().Select(engine.FromAvro(engine.Col("value"), contractSchema, map[string]string{"framing": "single-object"}).Alias("e")).
		WriteStream().Option("checkpointLocation", filepath.Join(home, "ck2")).Trigger(engine.AvailableNow()).Progress(false).
		ForeachBatch(func(*engine.DataFrame, int64) error { return nil }).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err == nil || !strings.Contains(err.Error(), "mode to PERMISSIVE") {
		t.Fatalf("FAILFAST: %v", err)
	}
}

// TestToAvroFromAvroRoundTrip writes a struct with to_avro and reads it
// back with from_avro in a batch DataFrame.
func TestToAvroFromAvroRoundTrip(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	p := fileAt(t, t.TempDir(), "x.csv", "e1,7,10.25\ne2,8,2.5\n", 1)
	df := s.Read().Schema("event_id string, account bigint, amount double").CSV(p)
	enc := df.Select(engine.ToAvro(engine.Col("event_id")).Alias("a"), engine.Col("account"))
	rows, err := enc.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The derived schema of a nullable string is ["string","null"]: branch
	// 0 (zigzag 0), then the string; encoded here by the library.
	sch := avro.MustParse(`["string","null"]`)
	for _, r := range rows {
		want, _ := sch.Encode(fmt.Sprintf("e%d", r["account"].(int64)-6))
		if string(r["a"].([]byte)) != string(want) {
			t.Fatalf("to_avro %x, want %x", r["a"], want)
		}
	}
	back := enc.Select(engine.FromAvro(engine.Col("a"), `["string","null"]`).Alias("id"))
	rows, err = back.Rows(context.Background())
	if err != nil || fmt.Sprint(rows) != "[map[id:e1] map[id:e2]]" {
		t.Fatalf("from_avro: %v %v", rows, err)
	}
}
