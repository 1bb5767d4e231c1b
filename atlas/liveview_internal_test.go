package atlas

import (
	"context"
	"encoding/json"
	"html"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
	spb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/progresschart"
	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
)

// internalServer starts the Atlas Connect server over a private home and
// returns a client session on it.
func internalServer(t *testing.T) *Session {
	t.Helper()
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", NoAuth: true, Conf: map[string]string{engine.ConfHome: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	spark := Builder().AppName(t.Name()).Remote("sc://" + srv.Addr()).GetOrCreate()
	t.Cleanup(spark.Close)
	return spark
}

// notebookLiveView is q's live view drawing into a recorder that acts as
// a notebook (HTML, updated in place), with the fake echarts bundle.
func notebookLiveView(t *testing.T, q *StreamingQuery, rec *displaytest.Recorder) *liveView {
	t.Helper()
	return &liveView{q: q, view: view.NewLiveViewOn(rec, q.Name(), displaytest.FakeBundlePath(t), 0)}
}

// TestLiveViewDrawsTheServersCharts: in a notebook the client's live view
// draws the charts the server renders (atlas.connect.ProgressCharts), and
// they are the charts of the query's progress: the same option JSON as
// progresschart builds from the progress list the client reads with plain
// recentProgress, with the batch ids and rates of that list.
func TestLiveViewDrawsTheServersCharts(t *testing.T) {
	spark := internalServer(t)
	q, err := spark.ReadStream().Format("rate").Option("rowsPerSecond", 500).Load().
		WriteStream().Format("memory").QueryName("ticks").
		Trigger(ProcessingTime("100 milliseconds")).Start()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(q.RecentProgress()) < 3 {
		if time.Now().After(deadline) {
			t.Fatal("fewer than 3 micro-batches within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Stopped, so the progress list no longer changes between the view's
	// request and the reference read.
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	ps := q.RecentProgress()

	rec := &displaytest.Recorder{IsHTML: true, IsLive: true}
	v := notebookLiveView(t, q, rec)
	v.refresh(context.Background())
	v.close(nil)
	frames := rec.Frames()
	if len(frames) < 2 {
		t.Fatalf("the live view sent %d frames, want the refresh's and the final one", len(frames))
	}
	final := frames[len(frames)-1].HTML
	drawn := displaytest.ParseCharts(t, final)

	want, err := progresschart.Build(ps)
	if err != nil {
		t.Fatal(err)
	}
	// A rate-to-memory copy has no watermark and no state: rates and
	// durations only, no empty panels.
	if len(drawn) != 2 || len(want) != 2 {
		t.Fatalf("the frame draws %d charts, the reference has %d; want 2", len(drawn), len(want))
	}
	for i := range want {
		if drawn[i].Raw != want[i].Option || drawn[i].TimeY != want[i].TimeY {
			t.Errorf("chart %d (%s): the frame draws\n%s (timeY %v)\nwant\n%s (timeY %v)", i, want[i].Title, drawn[i].Raw, drawn[i].TimeY, want[i].Option, want[i].TimeY)
		}
	}
	// The numbers, read from the progress list rather than from the
	// chart builder: batch ids on the x axis, input rates in chart (a).
	var batches []string
	for _, p := range ps {
		batches = append(batches, strconv.FormatInt(p.BatchID, 10))
	}
	if got := strings.Join(drawn[0].Option.XAxis[0].Data, ","); got != strings.Join(batches, ",") {
		t.Errorf("x axis %s, want the batches %s", got, strings.Join(batches, ","))
	}
	for i, p := range ps {
		var got float64
		raw := drawn[0].Option.Series[0].Data[i].Value
		if p.InputRowsPerSecond <= 0 { // a gap on the log axis
			if string(raw) != `"-"` {
				t.Errorf("batch %d input rows/s %v drawn %s, want a gap", p.BatchID, p.InputRowsPerSecond, raw)
			}
			continue
		}
		if err := json.Unmarshal(raw, &got); err != nil || got != p.InputRowsPerSecond {
			t.Errorf("batch %d input rows/s drawn %s, want %v", p.BatchID, drawn[0].Option.Series[0].Data[i].Value, p.InputRowsPerSecond)
		}
	}
	last := ps[len(ps)-1].BatchID
	if !strings.Contains(final, "batch "+strconv.FormatInt(last, 10)) || !strings.Contains(final, displaytest.FakeBundle) {
		t.Errorf("the final frame lacks batch %d in its headline or the inlined bundle", last)
	}
	if strings.Contains(final, html.EscapeString(noChartsNote)) {
		t.Errorf("a server with the extension got the no-charts note")
	}
}

// oldServer is a Spark Connect server from before the ProgressCharts
// extension: it answers recentProgress with a fixed progress list and an
// Atlas command extension it does not know with UNIMPLEMENTED, as Atlas
// servers did.
type oldServer struct {
	spb.UnimplementedSparkConnectServiceServer
	progress []StreamingQueryProgress
	showText string

	mu         sync.Mutex
	extensions int
	recent     int
}

func (s *oldServer) ExecutePlan(req *spb.ExecutePlanRequest, stream spb.SparkConnectService_ExecutePlanServer) error {
	cmd := req.GetPlan().GetCommand()
	s.mu.Lock()
	defer s.mu.Unlock()
	if ext := cmd.GetExtension(); ext != nil {
		s.extensions++
		return status.Error(codes.Unimplemented, "command extension "+ext.GetTypeUrl()+" is not supported (Atlas's command extensions are atlas.connect.ForeachBatchStart and ForeachBatchDone)")
	}
	if root := req.GetPlan().GetRoot(); root != nil {
		if root.GetHtmlString() != nil {
			return status.Error(codes.Unimplemented, "relation html_string is not supported")
		}
		if root.GetShowString() != nil {
			return stream.Send(showStringResponse(s.showText))
		}
	}
	if cmd.GetStreamingQueryCommand().GetRecentProgress() {
		s.recent++
		res := &spb.StreamingQueryCommandResult_RecentProgressResult{}
		for _, p := range s.progress {
			res.RecentProgressJson = append(res.RecentProgressJson, p.JSON())
		}
		return stream.Send(&spb.ExecutePlanResponse{SessionId: req.GetSessionId(), ResponseType: &spb.ExecutePlanResponse_StreamingQueryCommandResult{
			StreamingQueryCommandResult: &spb.StreamingQueryCommandResult{QueryId: cmd.GetStreamingQueryCommand().GetQueryId(),
				ResultType: &spb.StreamingQueryCommandResult_RecentProgress{RecentProgress: res}}}})
	}
	return status.Error(codes.Unimplemented, "not in this test")
}

func (s *oldServer) Config(context.Context, *spb.ConfigRequest) (*spb.ConfigResponse, error) {
	return &spb.ConfigResponse{}, nil
}

func (s *oldServer) counts() (extensions, recent int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.extensions, s.recent
}

// startOld serves s on a loopback port and returns a query handle on it.
func startOld(t *testing.T, s *oldServer) *StreamingQuery {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer()
	spb.RegisterSparkConnectServiceServer(g, s)
	go func() { _ = g.Serve(ln) }()
	spark := Builder().Remote("sc://" + ln.Addr().String()).GetOrCreate()
	t.Cleanup(func() {
		spark.Close()
		g.Stop()
	})
	return spark.query(&pb.StreamingQueryInstanceId{Id: s.progress[0].ID, RunId: s.progress[0].RunID}, "events")
}

// TestLiveViewWithoutTheServersCharts: against a server without the
// extension the notebook live view asks once, then shows the latest
// batches' numbers under a note saying why there are no charts, and keeps
// following the query with recentProgress; in a terminal it never asks for
// charts.
func TestLiveViewWithoutTheServersCharts(t *testing.T) {
	old := &oldServer{progress: displaytest.Sample()}
	q := startOld(t, old)

	rec := &displaytest.Recorder{IsHTML: true, IsLive: true}
	v := notebookLiveView(t, q, rec)
	v.refresh(context.Background())
	v.refresh(context.Background())
	v.close(nil)
	if ext, recent := old.counts(); ext != 1 || recent != 2 {
		t.Errorf("the view sent %d ProgressCharts and %d recentProgress requests, want 1 and 2", ext, recent)
	}
	frames := rec.Frames()
	if len(frames) < 3 {
		t.Fatalf("the live view sent %d frames, want the two refreshes' and the final one", len(frames))
	}
	final := frames[len(frames)-1].HTML
	if n := len(displaytest.ParseCharts(t, final)); n != 0 {
		t.Errorf("the final frame draws %d charts without the server's", n)
	}
	// The numbers table holds the last 10 of the 12 batches; batch 11's
	// row by hand: 4000+110 rows, rates rounded, 100+33 ms, the event
	// times, 30+11 rows in state and 12 rows dropped over all batches.
	for _, want := range []string{html.EscapeString(noChartsNote), "<caption>latest batches</caption>", "batch 11",
		`<td class="num">11</td><td class="num">4,110</td><td class="num">51,101</td><td class="num">411,000</td><td class="num">133</td><td>2026-11-30 10:22:00</td><td>2026-11-30 10:12:00</td><td class="num">41</td><td class="num">12</td>`} {
		if !strings.Contains(final, want) {
			t.Errorf("the final frame lacks %q", want)
		}
	}
	if body := final[strings.Index(final, "<tbody>"):strings.Index(final, "</tbody>")]; strings.Count(body, "<tr>") != 10 {
		t.Errorf("the numbers table has %d rows, want the last 10 batches", strings.Count(body, "<tr>"))
	}

	term := &displaytest.Recorder{}
	tv := &liveView{q: q, view: view.NewLiveViewOn(term, "events", displaytest.FakeBundlePath(t), 0)}
	tv.refresh(context.Background())
	tv.close(nil)
	if ext, _ := old.counts(); ext != 1 {
		t.Errorf("a terminal live view asked for charts (%d ProgressCharts requests in all)", ext)
	}
	if n := strings.Count(term.Out(), "\n"); n != len(old.progress) {
		t.Errorf("the terminal view printed %d lines, want one per batch (%d):\n%s", n, len(old.progress), term.Out())
	}
}
