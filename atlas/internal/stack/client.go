package stack

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/netaddr"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// loopbackDialTimeout is the dial timeout when every seed broker is on
// loopback: a local broker answers at once or not at all.
const loopbackDialTimeout = 2 * time.Second

// NewClient returns a franz-go client seeded with brokers ([Brokers] when
// empty) that creates topics on first use (kgo.AllowAutoTopicCreation) and
// dials loopback brokers with a short timeout. opts come last and override
// these defaults.
func NewClient(brokers []string, opts ...kgo.Opt) (*kgo.Client, error) {
	if len(brokers) == 0 {
		brokers = Brokers()
	}
	base := []kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.AllowAutoTopicCreation(),
	}
	if allLoopback(brokers) {
		base = append(base, kgo.DialTimeout(loopbackDialTimeout))
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("stack: kafka client for %v: %w", brokers, err)
	}
	return cl, nil
}

// EnsureTopic creates topic with the given partition count (-1: the
// broker's default) on brokers ([Brokers] when empty). A topic that already
// exists is left as it is, whatever its partition count.
func EnsureTopic(ctx context.Context, brokers []string, topic string, partitions int32) error {
	cl, err := NewClient(brokers)
	if err != nil {
		return err
	}
	defer cl.Close()
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, partitions, -1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("stack: create topic %q (%d partitions) on %v: %w", topic, partitions, brokers, err)
	}
	return nil
}

// Ping reports whether a broker among brokers answers a metadata request
// within ctx.
func Ping(ctx context.Context, brokers []string) error {
	cl, err := NewClient(brokers, kgo.RequestRetries(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.Ping(ctx); err != nil {
		return fmt.Errorf("stack: kafka at %v does not answer: %w", brokers, err)
	}
	return nil
}

// allLoopback reports whether every address is on the loopback interface.
func allLoopback(addrs []string) bool {
	for _, a := range addrs {
		if !netaddr.Loopback(a) {
			return false
		}
	}
	return len(addrs) > 0
}
