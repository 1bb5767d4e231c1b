package produce

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	// BrokersEnv names the environment variable holding the default seed
	// brokers, comma-separated host:port pairs.
	BrokersEnv = "ATLAS_KAFKA_BROKERS"
	// DefaultBroker is the seed broker when BrokersEnv is unset or empty.
	DefaultBroker = "127.0.0.1:9092"
)

// DefaultBrokers returns the brokers listed in $ATLAS_KAFKA_BROKERS, or
// DefaultBroker.
func DefaultBrokers() []string {
	var out []string
	for _, b := range strings.Split(os.Getenv(BrokersEnv), ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		out = []string{DefaultBroker}
	}
	return out
}

// ProducerOpts are the options NewClient uses to produce fast: topics are
// created on first use, partitions linger briefly so batches fill, and a
// batch may grow to just under the 1 MiB max.message.bytes that Kafka and
// kfake accept by default (a larger batch would be refused by the broker).
func ProducerOpts() []kgo.Opt {
	return []kgo.Opt{
		kgo.AllowAutoTopicCreation(),
		kgo.ProducerLinger(2 * time.Millisecond),
		kgo.ProducerBatchMaxBytes(1_000_000),
		kgo.MaxBufferedRecords(200_000),
	}
}

// NewClient returns a kgo client for brokers (DefaultBrokers when empty)
// with ProducerOpts, followed by opts, which may override them.
func NewClient(brokers []string, opts ...kgo.Opt) (*kgo.Client, error) {
	if len(brokers) == 0 {
		brokers = DefaultBrokers()
	}
	all := append([]kgo.Opt{kgo.SeedBrokers(brokers...)}, ProducerOpts()...)
	cl, err := kgo.NewClient(append(all, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("produce: kafka client for %s: %w", strings.Join(brokers, ","), err)
	}
	return cl, nil
}
