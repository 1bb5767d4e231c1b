package kafka

import (
	"math"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// metadataMinAge bounds how stale the topic metadata behind offset listings
// may be (kadm caches it for this long), and so how soon a new topic or
// partition is noticed, like Spark's partition discovery at every trigger.
const metadataMinAge = 250 * time.Millisecond

// clientOptions are the franz-go settings shared by the source's consumer
// and ConsumeRate, so that the raw rate measures the same client.
//
// The consumer is a direct (group-less) consumer: partitions are added with
// exact offsets as batches need them. Control records (transaction markers)
// are kept so that the source sees every offset it passes and can tell that
// a partition is complete even when a batch ends on a marker; they never
// reach the Arrow output. A fetch below the log start resets to the log
// start, and the gap is then reported as data loss. Fetched batches are
// decoded into pool's memory: the reader recycles each record once it is
// copied into Arrow.
func clientOptions(cfg *config, pool *recordPool) []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(cfg.bootstrap...),
		kgo.ClientID(cfg.clientID),
		kgo.FetchMaxBytes(cfg.fetchMaxBytes),
		kgo.FetchMaxPartitionBytes(cfg.fetchPartBytes),
		kgo.FetchMaxWait(cfg.fetchMaxWait),
		kgo.BrokerMaxReadBytes(int32(min(math.MaxInt32, max(100<<20, 2*int64(cfg.fetchMaxBytes))))),
		kgo.KeepControlRecords(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.MetadataMinAge(metadataMinAge),
		kgo.WithPools(pool),
	}
	if cfg.readCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	return opts
}
