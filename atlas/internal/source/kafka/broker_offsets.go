package kafka

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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
	cl            *kgo.Client // for topicIDs only
	adm           *kadm.Client
	topics        []string
	readCommitted bool
	// pattern, when set, is subscribePattern: the topics are those whose
	// whole name matches, listed anew each time (new topics join).
	pattern *regexp.Regexp
	// assigned, when set, is assign: only these partitions are listed.
	assigned map[string]map[int32]bool
}

// subscribed returns the topics to read now: subscribe's or assign's, or
// the existing non-internal topics matching subscribePattern.
func (l *offsetLister) subscribed(ctx context.Context) ([]string, error) {
	if l.pattern == nil {
		return l.topics, nil
	}
	details, err := l.adm.ListTopics(ctx)
	if err != nil {
		return nil, fmt.Errorf("kafka source: listing topics for subscribePattern %s: %w", l.pattern, err)
	}
	var out []string
	for _, d := range details.Sorted() {
		if d.Err == nil && !d.IsInternal && l.pattern.MatchString(d.Topic) {
			out = append(out, d.Topic)
		}
	}
	return out, nil
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
		var err error
		if topics, err = l.subscribed(ctx); err != nil {
			return nil, err
		}
		if len(topics) == 0 {
			return Offsets{}, nil // no topic matches yet
		}
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
			case l.assigned != nil && !l.assigned[o.Topic][o.Partition]:
				// Not assigned: not read.
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

// topicIDs returns the topic id (KIP-516) of each subscribed topic that
// exists, asking the broker (not the client's metadata cache, which may
// still hold a deleted topic's id). A broker without topic ids, or a topic
// whose metadata is not ready, gives no id, which turns the recreation
// check off for it.
func (l *offsetLister) topicIDs(ctx context.Context, topics ...string) (topicIDs, error) {
	if len(topics) == 0 {
		var err error
		if topics, err = l.subscribed(ctx); err != nil {
			return nil, err
		}
		if len(topics) == 0 {
			return topicIDs{}, nil
		}
	}
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(ctx, l.cl)
	if err != nil {
		return nil, fmt.Errorf("kafka source: reading the topic ids of %s: %w", strings.Join(topics, ","), err)
	}
	out := make(topicIDs, len(topics))
	for _, t := range resp.Topics {
		if t.Topic == nil || t.ErrorCode != 0 || t.TopicID == ([16]byte{}) {
			continue
		}
		out[*t.Topic] = kadm.TopicID(t.TopicID).String()
	}
	return out, nil
}
