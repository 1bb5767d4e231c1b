package atlas_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// envServerChild makes the test binary an Atlas Connect server over the
// home it names (and the brokers of envServerChild_BROKERS), printing
// "ADDR host:port" once it serves, until it is killed.
const envServerChild = "ATLAS_RESUME_SERVER_CHILD"

func serverChild(home, brokers string) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Tokens: testTokens, Log: os.Stderr,
		Conf: map[string]string{engine.ConfHome: home, engine.ConfKafkaBrokers: brokers}})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("ADDR", srv.Addr())
	select {}
}

// spawnServer starts a server child on home and returns its address and
// the process; its log is kept in log.
func spawnServer(t *testing.T, home, brokers string, log *syncBuffer) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envServerChild+"="+home, envServerChild+"_BROKERS="+brokers)
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		return a, cmd
	case <-time.After(30 * time.Second):
		t.Fatalf("the server child did not start; its log:\n%s", log.String())
		return "", nil
	}
}

// TestQueryResumesAfterTheServerIsKilled: the server process is killed
// with SIGKILL while its Kafka→Iceberg query is part way through the
// topic (between or inside micro-batches); a new server process on the
// same home resumes the query by itself, and the table holds every record
// of the topic exactly once.
func TestQueryResumesAfterTheServerIsKilled(t *testing.T) {
	brokers := wordsBroker(t)
	home := t.TempDir()
	log1 := &syncBuffer{}
	addr1, child1 := spawnServer(t, home, brokers, log1)
	sid := uuid.NewString()
	cell1 := sessionOn(t, addr1, sid)
	setupGroups(t, cell1)
	recs := produceClicks(t, brokers, 400, 0)
	// 40 records per batch every 150 ms: ten batches, about 1.5 s.
	q, err := clickWords(cell1).Join(cell1.Table("groups"), "word").
		WriteStream().QueryName("raw").Progress(false).
		Option("checkpointLocation", home+"/ck/raw").
		Trigger(atlas.ProcessingTime("150 milliseconds")).
		ToTable("lakehouse.shop.raw")
	if err != nil {
		t.Fatal(err)
	}
	id := q.ID()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if p := q.LastProgress(); p != nil && p.BatchID >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no third batch within 20 s; server log:\n%s", log1.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := child1.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child1.Wait()
	cell1.Close()
	recs = append(recs, produceClicks(t, brokers, 130, 2)...)

	log2 := &syncBuffer{}
	addr2, _ := spawnServer(t, home, brokers, log2)
	cell2 := sessionOn(t, addr2, sid)
	q2, err := cell2.Streams().Get("raw")
	if err != nil {
		t.Fatalf("%v; server log:\n%s", err, log2.String())
	}
	if q2.ID() != id {
		t.Fatalf("resumed query id %s, want %s", q2.ID(), id)
	}
	if err := q2.ProcessAllAvailable(); err != nil {
		t.Fatal(err)
	}
	sameLines(t, "raw after the killed server's successor", tableLines(t, cell2, "SELECT * FROM lakehouse.shop.raw"), expectedRaw(recs))
	if !strings.Contains(log2.String(), "resumed streaming query raw (id "+id+")") {
		t.Fatalf("the server log does not say it resumed raw:\n%s", log2.String())
	}
	if err := q2.Stop(); err != nil {
		t.Fatal(err)
	}
}
