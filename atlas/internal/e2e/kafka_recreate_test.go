package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// produceValues writes n records "<tag>-<i>" into topic, spread over its
// partitions, and returns the values.
func (e *env) produceValues(topic, tag string, n int) []string {
	e.t.Helper()
	cl, err := stack.NewClient([]string{e.brokers})
	if err != nil {
		e.t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	var vals []string
	for i := range n {
		v := fmt.Sprintf("%s-%d", tag, i)
		vals = append(vals, v)
		recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(v), Value: []byte(v)})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		e.t.Fatal(err)
	}
	return vals
}

// recreateTopic deletes topic and creates it again with 3 partitions.
func (e *env) recreateTopic(topic string) {
	e.t.Helper()
	cl, err := stack.NewClient([]string{e.brokers})
	if err != nil {
		e.t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.DeleteTopics(context.Background(), topic); err != nil {
		e.t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := adm.CreateTopic(context.Background(), 3, 1, nil, topic)
		if err == nil && resp.Err == nil {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("create topic %s again: %v %v", topic, err, resp.Err)
		}
	}
}

func (e *env) startRaw(name string, trigger engine.Trigger, failOnDataLoss bool) *engine.StreamingQuery {
	e.t.Helper()
	q, err := e.session.ReadStream().Format("kafka").
		Option("subscribe", "raw").
		Option("startingOffsets", "earliest").
		Option("failOnDataLoss", failOnDataLoss).
		Load().
		SelectExpr("CAST(value AS STRING) AS v").
		WriteStream().
		Trigger(trigger).
		Option("checkpointLocation", filepath.Join(e.home, "ck", name)).
		Progress(false).
		ToTable("lakehouse.gold." + name)
	if err != nil {
		e.t.Fatal(err)
	}
	return q
}

func (e *env) tableValues(name string) []string {
	e.t.Helper()
	rows, err := e.session.Table("lakehouse.gold." + name).Rows(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r["v"].(string))
	}
	sort.Strings(out)
	return out
}

func inputRows(q *engine.StreamingQuery) int64 {
	var n int64
	for _, p := range q.RecentProgress() {
		n += p.NumInputRows
	}
	return n
}

// A topic deleted and created again with more records than before: with
// failOnDataLoss=false a running query reads the new topic from its start
// (every record once) and its progress reports the switch; with the
// default a query, AvailableNow included, stops naming the topic.
func TestRecreatedTopicEndToEnd(t *testing.T) {
	e := newEnv(t)
	if err := stack.EnsureTopic(context.Background(), []string{e.brokers}, "raw", 3); err != nil {
		t.Fatal(err)
	}
	old := e.produceValues("raw", "old", 300)

	lenient := e.startRaw("lenient", engine.ProcessingTime("100 milliseconds"), false)
	defer lenient.Stop()
	strict := e.startRaw("strict", engine.AvailableNow(), true)
	if err := strict.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the old topic read", func() bool { return inputRows(lenient) == 300 })

	e.recreateTopic("raw")
	fresh := e.produceValues("raw", "new", 500)
	waitFor(t, 20*time.Second, "the new topic read", func() bool {
		if !lenient.IsActive() {
			t.Fatalf("the lenient query stopped: %v", lenient.Exception())
		}
		return inputRows(lenient) >= 800
	})
	if err := lenient.Stop(); err != nil {
		t.Fatal(err)
	}
	want := append(append([]string(nil), old...), fresh...)
	sort.Strings(want)
	if got := e.tableValues("lenient"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("table holds %d values, want the %d old and new records once each", len(got), len(want))
	}
	var reported []string
	for _, p := range lenient.RecentProgress() {
		src := p.Sources[0]
		if strings.Contains(string(src.StartOffset), "@") || strings.Contains(string(src.EndOffset), "@") {
			t.Errorf("batch %d progress shows Atlas's topic ids: %s %s", p.BatchID, src.StartOffset, src.EndOffset)
		}
		for _, d := range src.DataLoss {
			reported = append(reported, d.String())
		}
	}
	if len(reported) != 3 || !strings.Contains(reported[0], "deleted and created again") {
		t.Errorf("progress reported data loss %q, want one entry per partition of the recreated topic", reported)
	}

	// The strict query read the old topic; the new one holds more records,
	// so its offsets look valid: only the topic id tells.
	strict = e.startRaw("strict", engine.AvailableNow(), true)
	err := strict.AwaitTermination()
	if err == nil || !strings.Contains(err.Error(), `topic "raw" was deleted and created again`) || !strings.Contains(err.Error(), "failOnDataLoss") {
		t.Fatalf("AvailableNow on a recreated topic: err = %v, want the recreation named", err)
	}
	if got := e.tableValues("strict"); len(got) != len(old) {
		t.Errorf("strict table holds %d rows, want the %d old ones only", len(got), len(old))
	}
}
