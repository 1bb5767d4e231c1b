package server

import (
	"encoding/json"
	"fmt"
	"testing"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// TestStreamingDeduplicateOverConnect: readStream(kafka).select(word)
// .dropDuplicates(["word"]) into a memory sink, as PySpark sends it,
// keeps each word once across two rounds of records, and the progress
// documents count the rest as numDroppedDuplicateRows.
func TestStreamingDeduplicateOverConnect(t *testing.T) {
	srv, b := startKafkaServer(t, 3, t.TempDir())
	counts := map[string]int{}
	produceWords(t, b.Addr(), "dupwords", 50, 0, counts)
	c := dial(t, srv.Addr())
	read := &pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{IsStreaming: true, ReadType: &pb.Read_DataSource_{DataSource: &pb.Read_DataSource{
		Format: ptr("kafka"), Options: map[string]string{"subscribe": "dupwords", "startingOffsets": "earliest"},
	}}}}}
	words := selectOf(read, exprString("CAST(value AS STRING) AS word"))
	dedup := &pb.Relation{RelType: &pb.Relation_Deduplicate{Deduplicate: &pb.Deduplicate{Input: words, ColumnNames: []string{"word"}}}}
	resps, err := c.command(&pb.Command{CommandType: &pb.Command_WriteStreamOperationStart{WriteStreamOperationStart: &pb.WriteStreamOperationStart{
		Input: dedup, Format: "memory", OutputMode: "append", QueryName: "uniq",
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
	c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}})
	produceWords(t, b.Addr(), "dupwords", 30, 1, counts)
	c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_ProcessAllAvailable{ProcessAllAvailable: true}})
	var want []string
	for w := range counts {
		want = append(want, "word="+w)
	}
	same(t, "unique words", c.rows(c.sql("SELECT word FROM uniq")), want)
	docs := c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_RecentProgress{RecentProgress: true}}).GetRecentProgress().GetRecentProgressJson()
	var dropped int64
	for _, d := range docs {
		var p struct {
			StateOperators []struct {
				OperatorName  string           `json:"operatorName"`
				CustomMetrics map[string]int64 `json:"customMetrics"`
			} `json:"stateOperators"`
		}
		if err := json.Unmarshal([]byte(d), &p); err != nil {
			t.Fatal(err)
		}
		for _, op := range p.StateOperators {
			if op.OperatorName == "dedupe" {
				dropped += op.CustomMetrics["numDroppedDuplicateRows"]
			}
		}
	}
	if want := int64(80 - len(counts)); dropped != want {
		t.Errorf("numDroppedDuplicateRows summed %d, want %s", dropped, fmt.Sprint(want))
	}
	c.queryCmd(id, &pb.StreamingQueryCommand{Command: &pb.StreamingQueryCommand_Stop{Stop: true}})
}
