package server

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// adStream is PySpark's readStream.format("kafka")...load()
// .select(from_json(col("value").cast("string"), schema).alias("j"))
// .select(col("j.adId").alias(id), col("j.<time>")).withWatermark(time, delay).
func adStream(topic, timeCol, id, delay string) *pb.Relation {
	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("kafka"), Options: map[string]string{"subscribe": topic, "startingOffsets": "earliest", "maxOffsetsPerTrigger": "2"},
	}}}}}
	value := &pb.Expression{ExprType: &pb.Expression_Cast_{Cast: &pb.Expression_Cast{Expr: col("value"), CastToType: &pb.Expression_Cast_TypeStr{TypeStr: "string"}}}}
	parsed := selectOf(read, as(fn("from_json", value, strLit("adId long, "+timeCol+" timestamp")), "j"))
	flat := selectOf(parsed, as(col("j.adId"), id), col("j."+timeCol))
	return &pb.Relation{RelType: &pb.Relation_WithWatermark{WithWatermark: &pb.WithWatermark{Input: flat, EventTime: timeCol, DelayThreshold: delay}}}
}

// TestStreamStreamJoinOverConnect runs the programming guide's
// impressions/clicks left outer join as PySpark's Connect client sends it
// (a Join of two streaming relations on an expr() condition, written to
// the memory sink in append mode): the matched pairs and the impressions
// no click matched within the hour, once the watermark passes them.
func TestStreamStreamJoinOverConnect(t *testing.T) {
	b, err := stack.NewBroker(stack.BrokerOptions{Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	produce := func(topic, field string, rows [][2]string) {
		ctx := context.Background()
		if err := stack.EnsureTopic(ctx, []string{b.Addr()}, topic, 1); err != nil {
			t.Fatal(err)
		}
		cl, err := stack.NewClient([]string{b.Addr()})
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		for _, r := range rows {
			v := fmt.Sprintf(`{"adId": %s, %q: "2026-11-30T%s:00Z"}`, r[0], field, r[1])
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(v)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Batches of two: impressions i1..i4, clicks c1..c4; the watermark
	// (min of impressions - 2h and clicks - 3h) reaches 09:00 after batch
	// 1 and 12:00 after batch 2; impressions at or below W - 1h - 1 ms
	// leave the state.
	produce("impressions", "impressionTime", [][2]string{{"1", "10:00"}, {"2", "10:05"}, {"3", "14:00"}, {"4", "14:10"}})
	produce("clicks", "clickTime", [][2]string{{"1", "10:20"}, {"2", "11:30"}, {"3", "14:30"}, {"9", "15:00"}})
	// Batch 0: c1 joins i1 (10:20 within [10:00, 11:00]); c2 misses i2
	// (11:30 > 11:05). Watermark after: min(10:05-2h, 11:30-3h) = 08:05.
	// Batch 1: c3 joins i3. Watermark after: min(12:10, 12:00) = 12:00.
	// Batch 2 (no data, W 12:00): impressions <= 10:59:59.999 leave: i1
	// (matched) and i2 (never matched: emitted with nulls).
	home := t.TempDir()
	srv, err := Start(Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: map[string]string{engine.ConfHome: home, engine.ConfKafkaBrokers: b.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	c := dial(t, srv.Addr())
	cond := &pb.Expression{ExprType: &pb.Expression_ExpressionString_{ExpressionString: &pb.Expression_ExpressionString{
		Expression: "clickAdId = impressionAdId AND clickTime >= impressionTime AND clickTime <= impressionTime + interval 1 hour"}}}
	joined := &pb.Relation{RelType: &pb.Relation_Join{Join: &pb.Join{
		Left:     adStream("impressions", "impressionTime", "impressionAdId", "2 hours"),
		Right:    adStream("clicks", "clickTime", "clickAdId", "3 hours"),
		JoinType: pb.Join_JOIN_TYPE_LEFT_OUTER, JoinCondition: cond,
	}}}
	resps, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: joined, Format: "memory", OutputMode: "append", QueryName: "ads",
		Trigger: &pb.WriteStreamOperationStart_AvailableNow{AvailableNow: true},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	var id *pb.StreamingQueryInstanceId
	for _, r := range resps {
		if s := r.GetWriteStreamOperationStartResult(); s != nil {
			id = s.GetQueryId()
		}
	}
	if id == nil {
		t.Fatal("no start result")
	}
	c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_AwaitTermination{AwaitTermination: &pb.StreamingQueryCommand_AwaitTerminationCommand{}}})
	if e := c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Exception{Exception: true}}).GetException(); e.GetExceptionMessage() != "" {
		t.Fatalf("query failed: %s", e.GetExceptionMessage())
	}
	got := c.rows(c.sql("SELECT impressionAdId, date_format(impressionTime, 'HH:mm') AS i, clickAdId, date_format(clickTime, 'HH:mm') AS c FROM ads"))
	same(t, "left outer stream-stream join over Connect", got, []string{
		"impressionAdId=1 i=10:00 clickAdId=1 c=10:20",
		"impressionAdId=3 i=14:00 clickAdId=3 c=14:30",
		"impressionAdId=2 i=10:05 clickAdId=null c=null",
	})
}
