package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ConsumeRate reads every record currently in topic as fast as the client
// can, counting records without decoding or copying them, and returns the
// count and the time taken. It uses the source's own client settings, so it
// is the raw consume rate that GetBatch's Arrow building can be compared
// with. brokers is a kafka.bootstrap.servers list ("host:port,host:port").
// The clock starts when the end offsets are known, before the first fetch.
func ConsumeRate(ctx context.Context, brokers, topic string) (n int64, dur time.Duration, err error) {
	cfg, err := parseOptions(map[string]string{"kafka.bootstrap.servers": brokers, "subscribe": topic})
	if err != nil {
		return 0, 0, err
	}
	cl, err := kgo.NewClient(clientOptions(cfg, &recordPool{})...)
	if err != nil {
		return 0, 0, fmt.Errorf("kafka consume rate: creating client for %s: %w", brokers, err)
	}
	defer cl.Close()

	lister := &offsetLister{adm: kadm.NewClient(cl), topics: cfg.topics}
	starts, err := lister.earliest(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("kafka consume rate: %w", err)
	}
	ends, err := lister.latest(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("kafka consume rate: %w", err)
	}
	assign := make(map[string]map[int32]kgo.Offset)
	remaining := 0
	ends.each(func(t string, p int32, end int64) {
		if start, _ := starts.get(t, p); end > start {
			if assign[t] == nil {
				assign[t] = make(map[int32]kgo.Offset)
			}
			assign[t][p] = kgo.NewOffset().At(start)
			remaining++
		}
	})
	if remaining == 0 {
		return 0, 0, nil
	}

	done := make(map[topicPartition]bool, remaining)
	began := time.Now()
	cl.AddConsumePartitions(assign)
	for remaining > 0 {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return n, time.Since(began), fmt.Errorf("kafka consume rate: %w", err)
		}
		for i := range fetches {
			for j := range fetches[i].Topics {
				ft := &fetches[i].Topics[j]
				for k := range ft.Partitions {
					fp := &ft.Partitions[k]
					if fp.Err != nil {
						if errors.Is(fp.Err, kgo.ErrClientClosed) || errors.Is(fp.Err, context.Canceled) {
							return n, time.Since(began), fmt.Errorf("kafka consume rate: %w", fp.Err)
						}
						return n, time.Since(began), fmt.Errorf("kafka consume rate: fetching %s-%d: %w", ft.Topic, fp.Partition, fp.Err)
					}
					end, ok := ends.get(ft.Topic, fp.Partition)
					if !ok || len(fp.Records) == 0 {
						continue
					}
					last := fp.Records[len(fp.Records)-1].Offset
					for _, r := range fp.Records {
						if r.Offset < end && !r.Attrs.IsControl() {
							n++
						}
						// Like the source once it has copied a record.
						r.Recycle()
					}
					key := topicPartition{ft.Topic, fp.Partition}
					if last+1 >= end && !done[key] {
						done[key] = true
						remaining--
					}
				}
			}
		}
	}
	return n, time.Since(began), nil
}

type topicPartition struct {
	topic     string
	partition int32
}

// ReadRate reads every record currently in topic the way the source reads
// a micro-batch (its fetcher, its decoding into Arrow, only the value
// column built, as a query that parses value builds it) and returns the
// rows read and the time taken: the source's own raw rate, beside
// ConsumeRate's franz-go consumer. The clock starts when the offsets are
// known, before the first fetch.
func ReadRate(ctx context.Context, brokers, topic string) (n int64, dur time.Duration, err error) {
	src, err := New(map[string]string{"kafka.bootstrap.servers": brokers, "subscribe": topic, "startingOffsets": "earliest"})
	if err != nil {
		return 0, 0, fmt.Errorf("kafka read rate: %w", err)
	}
	defer src.Close()
	read := make([]bool, numColumns)
	read[colValue] = true
	src.PruneColumns(read)
	start, err := src.InitialOffset(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("kafka read rate: %w", err)
	}
	end, err := src.LatestOffset(ctx, start)
	if err != nil {
		return 0, 0, fmt.Errorf("kafka read rate: %w", err)
	}
	began := time.Now()
	err = src.GetBatch(ctx, start, end, func(rec arrow.RecordBatch) error {
		n += rec.NumRows()
		return nil
	})
	if err != nil {
		return n, time.Since(began), fmt.Errorf("kafka read rate: %w", err)
	}
	return n, time.Since(began), nil
}
