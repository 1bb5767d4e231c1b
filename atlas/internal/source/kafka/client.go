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

// clientOptions are the franz-go settings shared by the source's client
// and ConsumeRate's, so that the raw rate is measured with the same fetch
// sizes and waits.
//
// The source does not consume through franz-go: its fetcher sends Fetch
// requests of its own through the client (which keeps the connections,
// versions and metadata) and decodes record batches straight into Arrow.
// ConsumeRate is franz-go's direct (group-less) consumer: partitions are
// added with exact offsets, control records (transaction markers) kept,
// and a fetch below the log start resets to the log start. With a pool,
// franz-go decodes fetched batches into its reused memory (ConsumeRate
// recycles each record once counted).
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
	}
	if pool != nil {
		opts = append(opts, kgo.WithPools(pool))
	}
	if cfg.readCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	return opts
}
