package e2e_test

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/atlas-lakehouse/atlas/atlas/internal/scenarios"
)

// The test binary turns into a crash child when crashChildEnv names a
// scenario: it runs that query on the parent's broker and lakehouse,
// printing "batch N" after each batch, until it finishes or is killed.
const (
	crashChildEnv   = "ATLAS_CRASH_CHILD"
	crashHomeEnv    = "ATLAS_CRASH_HOME"
	crashBrokersEnv = "ATLAS_CRASH_BROKERS"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(crashChildEnv); mode != "" {
		if err := crashChild(mode, os.Getenv(crashHomeEnv), os.Getenv(crashBrokersEnv)); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("done")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashChild runs one scenario query from its checkpoint to the end of the
// topic, in small batches, reporting each batch on stdout.
func crashChild(mode, home, brokers string) error {
	s := engine.Builder().AppName("crash-child").Config(engine.ConfHome, home).Config(engine.ConfKafkaBrokers, brokers).GetOrCreate()
	defer s.Stop()
	var (
		q   *engine.StreamingQuery
		err error
	)
	switch mode {
	case "events":
		q, err = eventsQuery(s, 300).WriteStream().
			OutputMode("append").
			Trigger(engine.AvailableNow()).
			Option("checkpointLocation", filepath.Join(home, "ck", mode)).
			Option("lateRowsTable", eventsLateTable).
			Progress(false).
			ToTable("lakehouse.gold.event_windows")
	case "cdc":
		var totals scenarios.MergeTotals
		q, err = scenarios.StartOnlineRetailCDC(s, scenarios.CDCOptions{
			MaxOffsetsPerTrigger: 60,
			Checkpoint:           filepath.Join(home, "ck", mode),
			Trigger:              engine.AvailableNow(),
		}, &totals)
	default:
		return fmt.Errorf("unknown crash child %q", mode)
	}
	if err != nil {
		return err
	}
	last := int64(-1)
	for q.IsActive() {
		if p := q.LastProgress(); p != nil && p.BatchID != last {
			last = p.BatchID
			fmt.Println("batch", last)
		}
		time.Sleep(time.Millisecond)
	}
	return q.AwaitTermination()
}

// runCrashChild starts a child on e's broker and lakehouse and SIGKILLs it
// killAfter after it reports its first batch (at whatever it is doing
// then: reading, writing Parquet, committing to Iceberg, writing the
// checkpoint); killAfter < 0 lets it finish. It reports whether the child
// finished on its own.
func runCrashChild(t *testing.T, e *env, mode string, killAfter time.Duration) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+mode, crashHomeEnv+"="+e.home, crashBrokersEnv+"="+e.brokers)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, out)
	}()
	var kill <-chan time.Time
	finished := false
	for line := range lines {
		switch {
		case line == "done":
			finished = true
		case strings.HasPrefix(line, "error:"):
			cmd.Process.Kill()
			t.Fatalf("crash child %s: %s\n%s", mode, line, stderr.String())
		case strings.HasPrefix(line, "batch") && kill == nil && killAfter >= 0:
			kill = time.After(killAfter)
			go func(k <-chan time.Time) {
				<-k
				cmd.Process.Kill() // SIGKILL: no deferred cleanup runs
			}(kill)
		}
	}
	cmd.Wait()
	return finished
}

// TestCrashRecoveryWithSIGKILL kills each scenario's query several times
// with SIGKILL at random moments, restarts it from its checkpoint each
// time, and checks the final tables against the references computed from
// the raw Kafka records: no window counted twice or lost, no late row kept
// twice, no change merged twice. The seed of the kill times is logged.
func TestCrashRecoveryWithSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns several processes")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill-time seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, mode := range []string{"events", "cdc"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			var cdcCount int64
			if mode == "events" {
				e.produceEvents(produce.EventsConfig{Topic: "events", Count: 15000, Seed: 13, Span: 90 * time.Minute, OutOfOrder: 0.1, Late: 0.03, Duplicates: 0.01})
			} else {
				e.createCDCTable()
				// Long enough (about 100 batches of 60) that a child runs
				// well past the latest kill time.
				cfg := produce.CDCConfig{Count: 6000, Seed: 17, UpdateFraction: 0.55, DeleteFraction: 0.1, Keys: 1500}
				e.produceCDC(cfg)
				cdcCount = cfg.Count
			}
			kills := 0
			for i := 0; i < 4; i++ {
				if runCrashChild(t, e, mode, time.Duration(rng.IntN(150))*time.Millisecond) {
					break
				}
				kills++
			}
			if kills == 0 {
				t.Fatal("the first child finished before it could be killed: make the run longer")
			}
			if !runCrashChild(t, e, mode, -1) {
				t.Fatal("the last child did not finish")
			}
			t.Logf("%s: killed %d times, then finished", mode, kills)
			if mode == "events" {
				recs := e.readTopic("events")
				batches := committedBatches(t, filepath.Join(e.home, "ck", mode), recs)
				want, _, wantLate := referenceWindows(t, recs, batches)
				diffWindows(t, readWindows(t, e.session), want)
				diffLate(t, readLateRows(t, e.session), wantLate)
				return
			}
			diffCDC(t, readCDCTable(t, e.session), referenceCDC(t, e.readCDCTopic(cdcCount)))
		})
	}
}
