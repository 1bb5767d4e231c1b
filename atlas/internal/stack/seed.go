package stack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// SeedResult says what [ProduceOnce] did.
type SeedResult struct {
	// Held is how many records the topic held when it was checked.
	Held int64
	// Produced is how many records this call produced (0 when the topic
	// already held records).
	Produced int64
}

// seedLockPoll is how often ProduceOnce tries the lock another process holds.
const seedLockPoll = 50 * time.Millisecond

// ProduceOnce produces a topic's demo data at most once across processes:
// it takes an exclusive lock on home/run/produce-<topic>.lock (home
// defaults to lakehouse.Home()), counts the records in topic on brokers
// (default [Brokers]) and calls produce only when there are none, holding
// the lock until produce returns. Two `atlas run events`, or a notebook and
// the CLI, started together thus write the data once: the second waits
// for the first and then finds the topic full. The lock covers processes
// sharing one Atlas home, which is every user of the embedded broker; an
// external cluster shared across machines needs its own coordination.
func ProduceOnce(ctx context.Context, home string, brokers []string, topic string, produce func(ctx context.Context) (int64, error)) (SeedResult, error) {
	if home == "" {
		home = lakehouse.Home()
	}
	if len(brokers) == 0 {
		brokers = Brokers()
	}
	unlock, err := lockFile(ctx, filepath.Join(pathsOf(home).runDir, "produce-"+topic+".lock"))
	if err != nil {
		return SeedResult{}, err
	}
	defer unlock()
	held, err := topicRecords(ctx, brokers, topic)
	if err != nil {
		return SeedResult{}, err
	}
	if held > 0 {
		return SeedResult{Held: held}, nil
	}
	n, err := produce(ctx)
	return SeedResult{Produced: n}, err
}

// lockFile takes an exclusive flock on path, waiting while another process
// holds it, until ctx ends. The returned function releases it.
func lockFile(ctx context.Context, path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("stack: create %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("stack: open lock %s: %w", path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("stack: lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			owner, _ := os.ReadFile(path)
			f.Close()
			return nil, fmt.Errorf("stack: waiting for lock %s held by pid %s: %w", path, string(owner), ctx.Err())
		case <-time.After(seedLockPoll):
		}
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())), 0)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// topicRecords counts the records in topic (end minus log start, summed
// over partitions); a topic that does not exist holds none.
func topicRecords(ctx context.Context, brokers []string, topic string) (int64, error) {
	cl, err := NewClient(brokers)
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		return 0, fmt.Errorf("stack: list end offsets of %s: %w", topic, err)
	}
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err != nil {
		return 0, fmt.Errorf("stack: list start offsets of %s: %w", topic, err)
	}
	var n int64
	var listErr error
	ends.Each(func(e kadm.ListedOffset) {
		switch {
		case e.Err == nil:
			start := int64(0)
			if s, ok := starts.Lookup(e.Topic, e.Partition); ok && s.Err == nil {
				start = s.Offset
			}
			n += e.Offset - start
		case errors.Is(e.Err, kerr.UnknownTopicOrPartition):
		default:
			listErr = fmt.Errorf("stack: end offset of %s-%d: %w", e.Topic, e.Partition, e.Err)
		}
	})
	return n, listErr
}
