package produce

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// progressEvery is how often the produce loop reports progress.
const progressEvery = 100 * time.Millisecond

// ProduceEvents generates the stream cfg describes and sends every record,
// in generation order, to cfg.Topic with the user id as record key, then
// flushes. It sends exactly what GenerateEvents(cfg) returns. Records are
// produced asynchronously; any failed record fails the call. progress, if
// not nil, is called from the calling goroutine about every 100 ms with the
// number of acknowledged records and cfg.Count, and once at the end.
func ProduceEvents(ctx context.Context, client *kgo.Client, cfg EventsConfig, progress func(done, total int64)) (EventsSummary, error) {
	g, err := NewEventGenerator(cfg)
	if err != nil {
		return EventsSummary{}, err
	}
	cfg = g.Config()
	sum := EventsSummary{Topic: cfg.Topic}
	next := func() (key, value []byte, ok bool) {
		rec, ok := g.Next()
		if ok {
			sum.Add(rec)
		}
		return rec.Key, rec.Value, ok
	}
	sum.Elapsed, err = produceAll(ctx, client, cfg.Topic, cfg.Count, cfg.Rate, next, progress)
	if err != nil {
		return sum, fmt.Errorf("produce events to %q: %w", cfg.Topic, err)
	}
	return sum, nil
}

// ProduceCDC generates the change stream cfg describes and sends every
// change, in generation order, to cfg.Topic with invoice|stock_code as
// record key, then flushes. It sends exactly what GenerateCDC(cfg) returns.
// progress is called as for ProduceEvents.
func ProduceCDC(ctx context.Context, client *kgo.Client, cfg CDCConfig, progress func(done, total int64)) (CDCSummary, error) {
	g, err := NewCDCGenerator(cfg)
	if err != nil {
		return CDCSummary{}, err
	}
	cfg = g.Config()
	sum := CDCSummary{Topic: cfg.Topic}
	next := func() (key, value []byte, ok bool) {
		rec, ok := g.Next()
		if ok {
			sum.Add(rec)
		}
		return rec.Key, rec.Value, ok
	}
	sum.Elapsed, err = produceAll(ctx, client, cfg.Topic, cfg.Count, cfg.Rate, next, progress)
	if err != nil {
		return sum, fmt.Errorf("produce cdc to %q: %w", cfg.Topic, err)
	}
	return sum, nil
}

// produceAll sends the records next yields to topic, at most rate records
// per second when rate > 0, flushes, and returns the elapsed time. It stops
// at the first failed record or when ctx ends.
func produceAll(ctx context.Context, client *kgo.Client, topic string, total int64, rate float64,
	next func() (key, value []byte, ok bool), progress func(done, total int64)) (time.Duration, error) {
	if client == nil {
		return 0, errors.New("no kafka client")
	}
	var (
		acked    atomic.Int64
		failed   atomic.Bool
		mu       sync.Mutex
		firstErr error
	)
	promise := func(r *kgo.Record, err error) {
		if err == nil {
			acked.Add(1)
			return
		}
		mu.Lock()
		if firstErr == nil {
			firstErr = fmt.Errorf("record for partition %d: %w", r.Partition, err)
		}
		mu.Unlock()
		failed.Store(true)
	}
	report := func() {
		if progress != nil {
			progress(acked.Load(), total)
		}
	}

	start := time.Now()
	lastReport := start
	var sent int64
	for !failed.Load() && ctx.Err() == nil {
		key, value, ok := next()
		if !ok {
			break
		}
		if rate > 0 {
			if err := pace(ctx, start, sent, rate); err != nil {
				break
			}
		}
		client.Produce(ctx, &kgo.Record{Topic: topic, Key: key, Value: value}, promise)
		sent++
		if progress != nil && (rate > 0 || sent&1023 == 0) {
			if now := time.Now(); now.Sub(lastReport) >= progressEvery {
				lastReport = now
				report()
			}
		}
	}
	flushErr := client.Flush(ctx)
	elapsed := time.Since(start)
	report()

	mu.Lock()
	defer mu.Unlock()
	switch {
	case firstErr != nil:
		return elapsed, firstErr
	case ctx.Err() != nil:
		return elapsed, fmt.Errorf("stopped after %d of %d records: %w", acked.Load(), total, ctx.Err())
	case flushErr != nil:
		return elapsed, fmt.Errorf("flush: %w", flushErr)
	}
	return elapsed, nil
}

// pace sleeps until record number sent is due at rate records per second
// from start. It sleeps only when at least 2 ms ahead, so fast rates pay for
// one timer per few milliseconds rather than per record.
func pace(ctx context.Context, start time.Time, sent int64, rate float64) error {
	due := start.Add(time.Duration(float64(sent) / rate * float64(time.Second)))
	wait := time.Until(due)
	if wait < 2*time.Millisecond {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
