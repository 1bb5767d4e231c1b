package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// A checkpoint on an object store (S3) has no file lock; it is leased with
// conditional writes instead. The lease is a sequence of generations,
// objects _lease/<generation>, each created with If-None-Match: * (gocloud's
// IfNotExist), so that of two processes creating the same generation exactly
// one succeeds. The holder is the newest generation; it renews it by
// rewriting it every TTL/3. A newer query may take over only when the
// newest generation has not been renewed for its TTL (measured from the
// store's modification time of the object), by creating the next
// generation. The newest generation is never deleted (Close marks it
// released), so a holder that was paused past its TTL finds the newer one
// on its next check and stops instead of writing: the checkpoint writes of
// a bucket checkpoint first check that the lease is still theirs.

// leasePrefix holds the lease generations of a bucket checkpoint.
const leasePrefix = "_lease/"

// DefaultLeaseTTL is how long a bucket checkpoint's lease lasts without
// renewal: a query that dies without releasing it (SIGKILL, a lost
// machine) blocks its checkpoint for this long.
const DefaultLeaseTTL = 30 * time.Second

// leaseRecord is the content of one lease generation.
type leaseRecord struct {
	// Holder describes the query for messages: host, pid, token.
	Holder string `json:"holder"`
	// Token identifies one holder (one Open) uniquely.
	Token string `json:"token"`
	// TTLMillis is how long the lease lasts after its last renewal.
	TTLMillis int64 `json:"ttl_ms"`
	// PID is the holder's process id (local leases).
	PID int `json:"pid,omitempty"`
	// Released is set by Close: the lease is free. A released record is
	// the terminal record of a clean stop.
	Released bool `json:"released,omitempty"`
	// StoppedAt is when Close released it.
	StoppedAt time.Time `json:"stopped_at,omitzero"`
	// Retention is the id of the retention preparation that staged the
	// checkpoint for deletion (see retention.go).
	Retention string `json:"retention,omitempty"`
	// Deleting is set by a retention apply before it deletes anything: no
	// query may take the lease any more.
	Deleting bool `json:"deleting,omitempty"`
}

// bucketLease is a held lease on a bucket checkpoint.
type bucketLease struct {
	bucket   *blob.Bucket
	location string
	gen      int64
	rec      leaseRecord
	ttl      time.Duration
	etag     string // of this generation as last written by this holder
	logf     func(string, ...any)
	now      func() time.Time

	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}

	mu      sync.Mutex
	lost    error     // set once another holder took the lease over
	renewed time.Time // when this holder last renewed (local clock)
}

// leaseKey is the object name of generation gen (zero-padded, so that
// names sort as numbers).
func leaseKey(gen int64) string { return fmt.Sprintf("%s%020d", leasePrefix, gen) }

// holderDescription names this process for other processes' messages.
func holderDescription(token string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("process %d on %s (lease %s)", os.Getpid(), host, token[:8])
}

// acquireBucketLease takes the lease of the checkpoint in bucket, or fails
// with ErrInUse naming the holder while its lease is live. ttl <= 0 means
// DefaultLeaseTTL.
// now is the clock the expiry is judged by (time.Now but in tests).
// logf reports a lost or stalled lease (nil: log.Printf).
func acquireBucketLease(ctx context.Context, bucket *blob.Bucket, location string, ttl time.Duration, now func() time.Time, logf ...func(string, ...any)) (*bucketLease, error) {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	token := uuid.NewString()
	rec := leaseRecord{Holder: holderDescription(token), Token: token, TTLMillis: ttl.Milliseconds()}
	for attempt := 0; attempt < 3; attempt++ {
		gen, cur, mod, ok, err := newestLease(ctx, bucket)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: lease: %w", location, err)
		}
		if ok && (cur.Deleting || cur.Retention != "") {
			return nil, fmt.Errorf("%w: checkpoint %s is staged for deletion by retention preparation %s; it is retired and must not be used again", ErrInUse, location, cur.Retention)
		}
		if ok && !cur.Released {
			expires := mod.Add(time.Duration(cur.TTLMillis) * time.Millisecond)
			if now().Before(expires) {
				return nil, fmt.Errorf("%w: checkpoint %s is held by %s, whose lease runs until %s unless renewed; stop that query first (query.Stop(), or interrupt its cell), or give this one its own checkpointLocation or QueryName",
					ErrInUse, location, cur.Holder, expires.UTC().Format(time.RFC3339))
			}
		}
		next := gen + 1
		data, _ := json.Marshal(rec)
		err = bucket.WriteAll(ctx, leaseKey(next), data, &blob.WriterOptions{IfNotExist: true, ContentType: "application/json"})
		if gcerrors.Code(err) == gcerrors.FailedPrecondition {
			continue // another query created it first: look again
		}
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: lease: create %s: %w", location, leaseKey(next), err)
		}
		var lf func(string, ...any)
		if len(logf) > 0 {
			lf = logf[0]
		}
		l := &bucketLease{bucket: bucket, location: location, gen: next, rec: rec, ttl: ttl, logf: orLog(lf), now: now, renewed: now(), stop: make(chan struct{}), done: make(chan struct{})}
		l.etag, _ = etagOf(ctx, bucket, leaseKey(next))
		// A generation pruned by a newer holder can be created again by a
		// slow taker: only the newest generation holds the lease.
		if err := l.check(ctx); err != nil {
			_, cur, _, _, _ := newestLease(ctx, bucket)
			return nil, fmt.Errorf("%w: checkpoint %s is held by %s, who took it over at the same time; stop that query first", ErrInUse, location, cur.Holder)
		}
		l.prune(ctx)
		go l.renew()
		return l, nil
	}
	return nil, fmt.Errorf("%w: checkpoint %s: other queries kept taking its lease", ErrInUse, location)
}

// newestLease returns the newest lease generation, its record and its
// modification time (the store's clock), ok=false when there is none. A
// generation pruned between the listing and the read (a newer holder
// prunes old ones) makes it list again.
func newestLease(ctx context.Context, bucket *blob.Bucket) (gen int64, rec leaseRecord, mod time.Time, ok bool, err error) {
	for attempt := 0; ; attempt++ {
		gens, err := leaseGenerations(ctx, bucket)
		if err != nil || len(gens) == 0 {
			return 0, rec, mod, false, err
		}
		gen = gens[len(gens)-1]
		attrs, err := bucket.Attributes(ctx, leaseKey(gen))
		var data []byte
		if err == nil {
			data, err = bucket.ReadAll(ctx, leaseKey(gen))
		}
		if gcerrors.Code(err) == gcerrors.NotFound && attempt < 10 {
			continue
		}
		if err != nil {
			return 0, rec, mod, false, fmt.Errorf("read %s: %w", leaseKey(gen), err)
		}
		if err := json.Unmarshal(data, &rec); err != nil {
			return 0, rec, mod, false, fmt.Errorf("%s is corrupt: %w", leaseKey(gen), err)
		}
		return gen, rec, attrs.ModTime, true, nil
	}
}

// leaseGenerations lists the lease generations, ascending.
func leaseGenerations(ctx context.Context, bucket *blob.Bucket) ([]int64, error) {
	var gens []int64
	it := bucket.List(&blob.ListOptions{Prefix: leasePrefix})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", leasePrefix, err)
		}
		if g, err := strconv.ParseInt(strings.TrimPrefix(obj.Key, leasePrefix), 10, 64); err == nil {
			gens = append(gens, g)
		}
	}
	sort.Slice(gens, func(i, j int) bool { return gens[i] < gens[j] })
	return gens, nil
}

// check returns an error wrapping ErrLeaseLost when a newer generation
// exists: another query took the checkpoint over after this lease expired.
func (l *bucketLease) check(ctx context.Context) error {
	l.mu.Lock()
	lost := l.lost
	l.mu.Unlock()
	if lost != nil {
		return lost
	}
	gens, err := leaseGenerations(ctx, l.bucket)
	if err != nil {
		return fmt.Errorf("checkpoint %s: lease: %w", l.location, err)
	}
	if len(gens) > 0 && gens[len(gens)-1] > l.gen {
		holder := "another query"
		if _, rec, _, ok, err := newestLease(ctx, l.bucket); err == nil && ok {
			holder = rec.Holder
		}
		return l.markLost(fmt.Errorf("%w: checkpoint %s was taken over by %s after this query's lease expired (not renewed within %s); this query stops without writing",
			ErrLeaseLost, l.location, holder, l.ttl))
	}
	return nil
}

// markLost records and logs (once) that the lease is lost.
func (l *bucketLease) markLost(err error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost != nil {
		return l.lost
	}
	l.lost = err
	l.logf("checkpoint: %v", err)
	return err
}

// ErrLeaseLost is returned by the writes of a bucket checkpoint whose lease
// another query took over.
var ErrLeaseLost = errors.New("checkpoint lease lost")

// renew rewrites the lease every TTL/3 until release, unless it was lost.
func (l *bucketLease) renew() {
	defer close(l.done)
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
		l.renewOnce(ctx)
		cancel()
	}
}

// renewOnce rewrites this generation, conditionally on its ETag being the
// one this holder wrote last, after logging a stall (the process was
// paused, by SIGSTOP or a frozen VM, past its lease). A changed generation
// or a newer one means the lease is lost.
func (l *bucketLease) renewOnce(ctx context.Context) {
	l.mu.Lock()
	since := l.now().Sub(l.renewed)
	l.mu.Unlock()
	if since > l.ttl {
		l.logf("checkpoint %s: this query did not renew its lease for %s (the process was stalled?), over its TTL %s: another query may have taken the checkpoint over; checking", l.location, since.Round(time.Millisecond), l.ttl)
	}
	if l.check(ctx) != nil {
		return
	}
	data, _ := json.Marshal(l.rec)
	err := replaceIfMatch(ctx, l.bucket, leaseKey(l.gen), data, l.etag)
	if errors.Is(err, errChanged) {
		l.markLost(fmt.Errorf("%w: the lease of checkpoint %s was changed by another process while this query held it; this query stops without writing", ErrLeaseLost, l.location))
		return
	}
	if err != nil {
		return // a transient error: the next tick tries again, the TTL decides
	}
	etag, err := etagOf(ctx, l.bucket, leaseKey(l.gen))
	l.mu.Lock()
	if err == nil {
		l.etag = etag
	}
	l.renewed = l.now()
	l.mu.Unlock()
}

// prune deletes the generations older than the one before this lease's
// (best effort: they only cost a list entry each).
func (l *bucketLease) prune(ctx context.Context) {
	gens, err := leaseGenerations(ctx, l.bucket)
	if err != nil {
		return
	}
	for _, g := range gens {
		if g < l.gen-1 {
			l.bucket.Delete(ctx, leaseKey(g))
		}
	}
}

// halt stops the renewals and waits for the last one to end.
func (l *bucketLease) halt() {
	l.stopOnce.Do(func() { close(l.stop) })
	<-l.done
}

// release stops renewing and marks the lease released, unless it was lost.
func (l *bucketLease) release() error {
	if l == nil {
		return nil
	}
	l.halt()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if l.check(ctx) != nil {
		return nil // another query holds it now: leave its lease alone
	}
	rec := l.rec
	rec.Released, rec.StoppedAt = true, time.Now().UTC()
	data, _ := json.Marshal(rec)
	l.mu.Lock()
	etag := l.etag
	l.mu.Unlock()
	if err := replaceIfMatch(ctx, l.bucket, leaseKey(l.gen), data, etag); err != nil {
		return fmt.Errorf("checkpoint %s: release lease: %w", l.location, err)
	}
	return nil
}
