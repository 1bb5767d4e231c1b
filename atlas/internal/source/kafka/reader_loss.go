package kafka

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// chargeLosses fails on, or counts, the lost ranges that start before upTo.
func (r *reader) chargeLosses(st *partState, upTo int64) error {
	if len(st.losses) == 0 {
		return nil
	}
	keep := st.losses[:0]
	for _, l := range st.losses {
		if l.from >= upTo {
			keep = append(keep, l)
			continue
		}
		if r.failOnDataLoss {
			return fmt.Errorf("cannot fetch offsets [%d, %d) of %s: some data may have been lost because they are not available in Kafka any more; either the data was aged out by Kafka or the topic may have been deleted before all the data in the topic was processed. If you don't want your streaming query to fail on such cases, set the source option failOnDataLoss to false", l.from, l.to, st)
		}
		reason := l.reason
		if reason == "" {
			reason = "deleted before they were read (retention, DeleteRecords or truncation)"
		}
		r.lost.Add(l.to - l.from)
		r.loss = append(r.loss, progress.DataLoss{
			Partition: st.String(), FromOffset: l.from, ToOffset: l.to, Reason: reason,
		})
	}
	st.losses = keep
	return nil
}

// checkStalled asks the broker about partitions that have brought nothing
// for a while: whose records were deleted by retention before being read,
// or whose log was truncated below the batch end. Both are data loss. A
// partition whose fetches have kept failing for fetchErrorTimeout fails
// the batch with the fetches' error.
func (r *reader) checkStalled(ctx context.Context) error {
	for _, st := range r.active {
		if st.done {
			continue
		}
		if err := r.f.stuck(st.topic, st.partition, r.fetchErrorTimeout); err != nil {
			return fmt.Errorf("no records from %s: %w", st, err)
		}
	}
	var topics []string
	seen := map[string]bool{}
	for _, st := range r.active {
		if !st.done && !seen[st.topic] {
			seen[st.topic] = true
			topics = append(topics, st.topic)
		}
	}
	lister := &offsetLister{adm: r.adm, readCommitted: r.readCommitted}
	starts, err := lister.earliest(ctx, topics...)
	if err != nil {
		return err
	}
	ends, err := lister.latest(ctx, topics...)
	if err != nil {
		return err
	}
	for _, st := range r.active {
		if st.done {
			continue
		}
		logStart, _ := starts.get(st.topic, st.partition)
		logEnd, ok := ends.get(st.topic, st.partition)
		switch {
		case logStart >= st.end:
			st.losses = append(st.losses, offsetRange{from: st.fetched, to: st.end})
		case ok && logEnd < st.end:
			st.losses = append(st.losses, offsetRange{from: max(st.fetched, logEnd), to: st.end})
		default:
			continue
		}
		st.fetched = st.end
		if err := r.complete(st); err != nil {
			return err
		}
	}
	return nil
}
