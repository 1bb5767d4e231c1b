package atlas_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	"github.com/google/uuid"
)

// envCrashChild makes the test binary play a notebook cell that runs a
// foreachBatch query and is killed (SIGKILL) in the middle of batch 2.
const envCrashChild = "ATLAS_CLIENT_CRASH_CHILD"

// TestMain lets the test binary play the child cell of
// TestForeachBatchExactlyOnceAcrossAKilledCell when envCrashChild is set,
// and the server of TestQueryResumesAfterTheServerIsKilled when
// envServerChild is.
func TestMain(m *testing.M) {
	if addr := os.Getenv(envCrashChild); addr != "" {
		crashChild(addr, os.Getenv(envCrashChild+"_CHECKPOINT"))
		return
	}
	if home := os.Getenv(envServerChild); home != "" {
		serverChild(home, os.Getenv(envServerChild+"_BROKERS"))
		return
	}
	// The tests' servers require testToken, which every client of the
	// test binary (and its children) sends from the environment.
	os.Setenv(atlas.EnvConnectToken, testToken)
	os.Exit(m.Run())
}

// testToken is the owner's token of the tests' servers (testTokens).
const testToken = "atlas-client-test-token-0123456789"

// testTokens are the Config.Tokens of the tests' servers.
var testTokens = map[string]string{server.OwnerPrincipal: testToken}

// crashChild runs the foreachBatch query until the parent kills it inside
// batch 2, after the batch's writes and before its answer.
func crashChild(addr, checkpoint string) {
	spark := atlas.Builder().Remote("sc://" + addr).GetOrCreate()
	var seen []int64
	q, err := changeStream(spark).WriteStream().QueryName("lab").Progress(false).
		Option("checkpointLocation", checkpoint).
		Trigger(atlas.AvailableNow()).
		ForeachBatch(upsert(spark, &seen, func(id int64) {
			if id == 2 {
				fmt.Println("WROTE BATCH 2") // the parent kills this process now
				time.Sleep(time.Minute)
			}
		})).Start()
	if err != nil {
		log.Fatal(err)
	}
	log.Fatalf("the child was not killed: %v", q.AwaitTermination())
}

func TestForeachBatchExactlyOnceAcrossAKilledCell(t *testing.T) {
	addr, home, changes := kafkaServer(t, 640)
	checkpoint := filepath.Join(home, "checkpoints", "lab")
	setup := connect(t, addr)
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.lab",
		"CREATE TABLE lakehouse.lab.log (k string, v bigint) USING iceberg",
		"CREATE TABLE lakehouse.lab.latest (k string, v bigint, ts timestamp) USING iceberg",
	} {
		if _, err := setup.SQL(q); err != nil {
			t.Fatal(err)
		}
	}

	// The first cell: a separate process, killed inside batch 2 after its writes.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The cells of one kernel share a session id, as the kernel's do.
	sid := uuid.NewString()
	child := exec.CommandContext(ctx, os.Args[0])
	child.Env = append(os.Environ(), envCrashChild+"="+addr, envCrashChild+"_CHECKPOINT="+checkpoint, atlas.EnvSessionID+"="+sid)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	killed := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "WROTE BATCH 2") {
			_ = child.Process.Kill()
			killed = true
			break
		}
	}
	_ = child.Wait()
	if !killed {
		t.Fatal("the child cell never reached batch 2")
	}

	// The next cell of the kernel asks for the query: it failed when its
	// cell went away, as Spark's query whose foreachBatch worker dies,
	// and Get says so instead of that there is no such query.
	cell2 := sessionOn(t, addr, sid)
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := cell2.Streams().Get("lab")
		if err != nil && strings.Contains(err.Error(), "terminated with an exception") && strings.Contains(err.Error(), "went away") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Get(lab) after its cell was killed: %v; want that it failed because its client went away", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The rerun: the new cell starts it again.
	run2 := rerunLab(t, cell2, checkpoint, 15*time.Second)
	if len(run2) == 0 || run2[0] != 2 {
		t.Fatalf("the rerun saw batches %v: it must replay batch 2, which the killed cell never answered", run2)
	}
	logRows, err := cell2.Table("lakehouse.lab.log").Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range logRows {
		seen[fmt.Sprintf("%s/%d", r["k"], r["v"])]++
	}
	for _, c := range changes {
		if n := seen[fmt.Sprintf("%s/%d", c.k, c.v)]; n != 1 {
			t.Errorf("change %s/%d is in the log %d times, want once", c.k, c.v, n)
		}
	}
	if len(logRows) != len(changes) {
		t.Fatalf("log holds %d rows, want %d", len(logRows), len(changes))
	}
}
