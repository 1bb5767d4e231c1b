package atlas_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestBatchKafkaRead: spark.read.format("kafka") through the client and
// the Spark Connect server reads every record of the topic from earliest
// to latest, or the range JSON offsets name, with the streaming source's
// columns; maxOffsetsPerTrigger is ignored with Spark's warning in the
// server's log, and startingOffsets=latest is refused in Spark's words.
// The answers are the records as produced.
func TestBatchKafkaRead(t *testing.T) {
	brokers := wordsBroker(t)
	recs := produceClicks(t, brokers, 60, 0)
	log := &syncBuffer{}
	srv := startHomeServer(t, t.TempDir(), brokers, log)
	spark := connect(t, srv.Addr())
	ctx := context.Background()
	read := func(opts map[string]string) ([]string, error) {
		df := spark.Read().Format("kafka").Option("subscribe", "clicks").Options(opts).Load().
			SelectExpr("partition", "offset", "CAST(value AS STRING) AS word", "topic", "key IS NULL AS nokey", "timestampType")
		rows, err := df.Rows(ctx)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprintf("%d/%d %s %s %v %d", r["partition"], r["offset"], r["word"], r["topic"], r["nokey"], r["timestampType"]))
		}
		sort.Strings(out)
		return out, nil
	}
	want := func(in func(p int32, off int64) bool) []string {
		var out []string
		for _, r := range recs {
			if in(r.partition, r.offset) {
				out = append(out, fmt.Sprintf("%d/%d %s clicks true 0", r.partition, r.offset, r.word))
			}
		}
		sort.Strings(out)
		return out
	}
	check := func(what string, got []string, err error, want []string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: got %d rows\n%s\nwant %d\n%s", what, len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
		}
	}
	all := want(func(int32, int64) bool { return true })
	if len(all) != 60 {
		t.Fatalf("reference has %d rows", len(all))
	}
	got, err := read(nil)
	check("defaults", got, err, all)
	n := map[int32]int64{}
	for _, r := range recs {
		n[r.partition]++
	}
	s0, e0, e1, s2 := n[0]/3, 2*n[0]/3, n[1]/2, n[2]/2
	got, err = read(map[string]string{
		"startingOffsets": fmt.Sprintf(`{"clicks":{"0":%d,"1":-2,"2":%d}}`, s0, s2),
		"endingOffsets":   fmt.Sprintf(`{"clicks":{"0":%d,"1":%d,"2":-1}}`, e0, e1),
	})
	check("JSON offsets", got, err, want(func(p int32, off int64) bool {
		switch p {
		case 0:
			return off >= s0 && off < e0
		case 1:
			return off < e1
		}
		return off >= s2
	}))
	got, err = read(map[string]string{"maxOffsetsPerTrigger": "5"})
	check("maxOffsetsPerTrigger", got, err, all)
	if !strings.Contains(log.String(), "maxOffsetsPerTrigger option ignored in batch queries") {
		t.Errorf("server log lacks Spark's warning:\n%s", log.String())
	}
	if _, err := read(map[string]string{"startingOffsets": "latest"}); err == nil || !strings.Contains(err.Error(), "starting offset can't be latest for batch queries on Kafka") {
		t.Errorf("startingOffsets=latest: err = %v, want Spark's refusal", err)
	}
}
