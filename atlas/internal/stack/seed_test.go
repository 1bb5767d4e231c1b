package stack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Environment of a ProduceOnce child process (the test binary re-run).
const (
	seedChildEnv   = "ATLAS_TEST_SEED_CHILD" // the barrier file to wait for
	seedHomeEnv    = "ATLAS_TEST_SEED_HOME"
	seedBrokersEnv = "ATLAS_TEST_SEED_BROKERS"
)

const (
	seedTopic   = "seeded"
	seedRecords = 1000
)

// seedChild produces seedRecords records into seedTopic with ProduceOnce.
// Its produce function first dawdles, as generating demo data does, so
// that a second process checks the topic while the first is still about
// to produce.
func seedChild(ctx context.Context, home, brokers string) (SeedResult, error) {
	return ProduceOnce(ctx, home, []string{brokers}, seedTopic, func(ctx context.Context) (int64, error) {
		time.Sleep(300 * time.Millisecond)
		cl, err := NewClient([]string{brokers})
		if err != nil {
			return 0, err
		}
		defer cl.Close()
		recs := make([]*kgo.Record, seedRecords)
		for i := range recs {
			recs[i] = &kgo.Record{Topic: seedTopic, Value: []byte(strconv.Itoa(i))}
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			return 0, err
		}
		return seedRecords, nil
	})
}

// TestProduceOnceChild is not a test: it is the child process of
// TestProduceOnceAcrossProcesses.
func TestProduceOnceChild(t *testing.T) {
	barrier := os.Getenv(seedChildEnv)
	if barrier == "" {
		t.Skip("child process of TestProduceOnceAcrossProcesses")
	}
	for {
		if _, err := os.Stat(barrier); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	res, err := seedChild(context.Background(), os.Getenv(seedHomeEnv), os.Getenv(seedBrokersEnv))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("seed-result held=%d produced=%d\n", res.Held, res.Produced)
}

// Processes that start producing demo data at the same moment produce it
// once: the topic ends with exactly one copy, and exactly one process
// reports having produced it.
func TestProduceOnceAcrossProcesses(t *testing.T) {
	b, err := NewBroker(BrokerOptions{Partitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	home := t.TempDir()
	barrier := filepath.Join(t.TempDir(), "go")
	const procs = 3
	type result struct {
		out string
		err error
	}
	results := make(chan result, procs)
	for range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestProduceOnceChild$", "-test.v")
		cmd.Env = append(os.Environ(), seedChildEnv+"="+barrier, seedHomeEnv+"="+home, seedBrokersEnv+"="+b.Addr())
		go func() {
			out, err := cmd.CombinedOutput()
			results <- result{string(out), err}
		}()
	}
	time.Sleep(200 * time.Millisecond) // let the children start and wait
	if err := os.WriteFile(barrier, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var produced, held int
	for range procs {
		r := <-results
		if r.err != nil {
			t.Fatalf("child: %v\n%s", r.err, r.out)
		}
		switch {
		case strings.Contains(r.out, fmt.Sprintf("seed-result held=0 produced=%d", seedRecords)):
			produced++
		case strings.Contains(r.out, fmt.Sprintf("seed-result held=%d produced=0", seedRecords)):
			held++
		default:
			t.Errorf("unexpected child output:\n%s", r.out)
		}
	}
	n, err := topicRecordsRead(t, b.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if n != seedRecords || produced != 1 || held != procs-1 {
		t.Fatalf("topic holds %d records (want %d); %d processes produced, %d found the data (want 1 and %d)", n, seedRecords, produced, held, procs-1)
	}
}

// topicRecordsRead counts seedTopic's records by reading them, independent
// of the offset arithmetic ProduceOnce uses.
func topicRecordsRead(t *testing.T, addr string) (int, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(seedTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n := 0
	for ctx.Err() == nil {
		n += cl.PollFetches(ctx).NumRecords()
	}
	return n, nil
}

// Programs that start the stack at the same moment share one daemon: each
// EnsureUp succeeds with the same pid, and exactly one started it (without
// turns, the later ones raced the first for the port and failed).
func TestEnsureUpConcurrently(t *testing.T) {
	ctx := context.Background()
	t.Setenv(EnvKafkaBrokers, "")
	home := t.TempDir()
	opts := Options{Home: home, Addr: freeAddr(t), Partitions: 1}
	t.Cleanup(func() { Down(ctx, home) })
	const n = 4
	infos := make([]Info, n)
	errs := make([]error, n)
	done := make(chan int)
	for i := range n {
		go func() {
			infos[i], errs[i] = EnsureUp(ctx, opts)
			done <- i
		}()
	}
	for range n {
		<-done
	}
	started := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("EnsureUp %d: %v", i, errs[i])
		}
		if infos[i].PID != infos[0].PID {
			t.Errorf("EnsureUp %d found pid %d, EnsureUp 0 pid %d", i, infos[i].PID, infos[0].PID)
		}
		if infos[i].Started {
			started++
		}
	}
	if started != 1 {
		t.Errorf("%d of %d EnsureUp calls started a daemon, want 1", started, n)
	}
}
