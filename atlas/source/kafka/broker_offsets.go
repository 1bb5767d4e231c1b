package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// listRetries and listBackoff bound how long an offsets listing retries a
// partition error the broker says is temporary (a leader moving, a topic
// being created).
const (
	listRetries = 5
	listBackoff = 100 * time.Millisecond
)

// offsetLister lists the log start and end offsets of the subscribed topics.
type offsetLister struct {
	adm           *kadm.Client
	topics        []string
	readCommitted bool
}

// earliest returns each partition's log start offset. A topic that does not
// exist yet has no partitions.
func (l *offsetLister) earliest(ctx context.Context, topics ...string) (Offsets, error) {
	return l.list(ctx, "log start", l.adm.ListStartOffsets, topics)
}

// latest returns each partition's end: the high watermark, or with
// read_committed the last stable offset. A topic that does not exist yet has
// no partitions.
func (l *offsetLister) latest(ctx context.Context, topics ...string) (Offsets, error) {
	if l.readCommitted {
		return l.list(ctx, "last stable", l.adm.ListCommittedOffsets, topics)
	}
	return l.list(ctx, "end", l.adm.ListEndOffsets, topics)
}

func (l *offsetLister) list(ctx context.Context, what string, fn func(context.Context, ...string) (kadm.ListedOffsets, error), topics []string) (Offsets, error) {
	if len(topics) == 0 {
		topics = l.topics
	}
	for attempt := 1; ; attempt++ {
		listed, err := fn(ctx, topics...)
		if err != nil {
			return nil, fmt.Errorf("kafka source: listing %s offsets of %s: %w", what, strings.Join(topics, ","), err)
		}
		out := make(Offsets, len(topics))
		var retry error
		listed.Each(func(o kadm.ListedOffset) {
			switch {
			case o.Err == nil:
				out.set(o.Topic, o.Partition, o.Offset)
			case o.Partition < 0 && errors.Is(o.Err, kerr.UnknownTopicOrPartition):
				// The topic does not exist yet: no partitions, no data.
			case kerr.IsRetriable(o.Err):
				retry = fmt.Errorf("kafka source: listing %s offset of %s-%d: %w", what, o.Topic, o.Partition, o.Err)
			default:
				if err == nil {
					err = fmt.Errorf("kafka source: listing %s offset of %s-%d: %w", what, o.Topic, o.Partition, o.Err)
				}
			}
		})
		if err != nil {
			return nil, err
		}
		if retry == nil {
			return out, nil
		}
		if attempt >= listRetries {
			return nil, retry
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("kafka source: listing %s offsets of %s: %w", what, strings.Join(topics, ","), ctx.Err())
		case <-time.After(listBackoff):
		}
	}
}
