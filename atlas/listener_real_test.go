package atlas_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// calls records listener events and foreach writer calls, in order.
type calls struct {
	mu  sync.Mutex
	log []string
}

func (c *calls) add(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, s)
}

func (c *calls) get() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log...)
}

func (c *calls) Open(p, e int64) (bool, error) {
	c.add(fmt.Sprintf("open %d %d", p, e))
	return true, nil
}
func (c *calls) Process(r atlas.Row) error { c.add(fmt.Sprintf("process %v", r["v"])); return nil }
func (c *calls) Close(err error) error     { c.add(fmt.Sprintf("close %v", err)); return nil }

// TestListenerAndForeachThroughClient: a Go ForeachWriter runs in the
// client, called exactly per batch and row; a listener registered with
// Streams().AddListener gets the started event from the client and the
// progress and terminated events from the server's listener bus, in order.
func TestListenerAndForeachThroughClient(t *testing.T) {
	home := t.TempDir()
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: map[string]string{engine.ConfHome: home, engine.ConfNoDataProgressEventInterval: "3600000"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	spark := connect(t, srv.Addr())
	dir := filepath.Join(home, "in")
	os.MkdirAll(dir, 0o755)
	write := func(name string, vs ...int) {
		var b strings.Builder
		for _, v := range vs {
			fmt.Fprintf(&b, "{\"v\":%d}\n", v)
		}
		tmp := filepath.Join(dir, "."+name) // hidden until whole
		if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	events := &calls{}
	l := &atlas.StreamingQueryListenerFuncs{
		Started: func(e *atlas.QueryStartedEvent) { events.add("started " + e.ID + " " + e.Name) },
		Progress: func(e *atlas.QueryProgressEvent) {
			events.add(fmt.Sprintf("progress %d %d", e.Progress.BatchID, e.Progress.NumInputRows))
		},
		Idle: func(e *atlas.QueryIdleEvent) { events.add("idle") },
		Terminated: func(e *atlas.QueryTerminatedEvent) {
			events.add(fmt.Sprintf("terminated %s %v", e.ID, e.Exception))
		},
	}
	if err := spark.Streams().AddListener(l); err != nil {
		t.Fatal(err)
	}
	write("a.json", 1, 2, 3)
	writer := &calls{}
	q, err := spark.ReadStream().Schema("v bigint").JSON(dir).WriteStream().QueryName("rows").
		Option("checkpointLocation", filepath.Join(home, "ck")).Progress(false).Foreach(writer).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	write("b.json", 4, 5)
	if err := q.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	want := []string{"started " + q.ID() + " rows", "progress 0 3", "progress 1 2", fmt.Sprintf("terminated %s <nil>", q.ID())}
	deadline := time.Now().Add(10 * time.Second)
	for len(events.get()) < len(want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := events.get(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("listener events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantCalls := []string{"open 0 0", "process 1", "process 2", "process 3", "close <nil>", "open 0 1", "process 4", "process 5", "close <nil>"}
	if got := writer.get(); strings.Join(got, "\n") != strings.Join(wantCalls, "\n") {
		t.Fatalf("writer calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantCalls, "\n"))
	}
	if err := spark.Streams().RemoveListener(l); err != nil {
		t.Fatal(err)
	}
	if n := len(spark.Streams().ListListeners()); n != 0 {
		t.Fatalf("%d listeners after RemoveListener", n)
	}
}
