package exec

import (
	"context"
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// Backoff between attempts of a source call that failed with a
// source.UnavailableError: doubling from retryFirstBackoff up to
// retryMaxBackoff.
const (
	retryFirstBackoff = 250 * time.Millisecond
	retryMaxBackoff   = 5 * time.Second
	// defaultUnavailableWait bounds the wait of a query that must end when
	// the source names no bound of its own.
	defaultUnavailableWait = 30 * time.Second
)

// retrySource runs fn until it succeeds or fails with an error other than a
// source.UnavailableError, waiting with backoff in between; the status says
// what the query waits for. fn gets the attempt number (0 first). With
// bounded (Start, Trigger.AvailableNow, Trigger.Once) it gives up once the
// source has been unavailable for the error's MaxWait, with an error that
// names what it waited for and how to fix it; otherwise it waits until
// the source comes back or ctx ends.
func (q *Query) retrySource(ctx context.Context, bounded bool, fn func(attempt int) error) error {
	var since time.Time
	backoff := retryFirstBackoff
	for attempt := 0; ; attempt++ {
		err := fn(attempt)
		ue := source.AsUnavailable(err)
		if ue == nil || ctx.Err() != nil {
			if attempt > 0 && q.cfg.OnWait != nil {
				q.cfg.OnWait("")
			}
			return err
		}
		if since.IsZero() {
			since = time.Now()
		}
		if bounded {
			limit := ue.MaxWait
			if limit <= 0 {
				limit = defaultUnavailableWait
			}
			waited := time.Since(since)
			if waited >= limit {
				return fmt.Errorf("%s is still unavailable after %s of retries; %s: %w", ue.WaitingFor, waited.Round(time.Millisecond), ue.Hint, ue.Err)
			}
			backoff = min(backoff, limit-waited)
		}
		msg := fmt.Sprintf("Waiting for %s (retry %d, next in %s): %v", ue.WaitingFor, attempt+1, backoff.Round(time.Millisecond), ue.Err)
		q.setStatus(msg, false, false)
		if q.cfg.OnWait != nil {
			q.cfg.OnWait(msg)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, retryMaxBackoff)
	}
}

// mustEnd says whether the trigger stops once the available data is read,
// so that waiting for an unavailable source is bounded.
func (t Trigger) mustEnd() bool {
	return t.Kind == TriggerAvailableNow || t.Kind == TriggerOnce
}
