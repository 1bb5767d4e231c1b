package checkpoint

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"
)

// later is a clock two hours ahead: every lease written now has expired.
func later() time.Time { return time.Now().Add(2 * time.Hour) }

// crash stops a lease's renewal without releasing it, as a killed process
// leaves it.
func crash(l *bucketLease) { l.halt() }

// TestBucketLeaseRefusesASecondHolder: while a lease is live, a second
// Open is refused naming the holder; once released, it is free at once.
func TestBucketLeaseRefusesASecondHolder(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	l1, err := acquireBucketLease(ctx, b, "s3://bkt/ck", time.Hour, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	_, err = acquireBucketLease(ctx, b, "s3://bkt/ck", time.Hour, time.Now)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), l1.rec.Holder) {
		t.Fatalf("second holder: %v, want ErrInUse naming %q", err, l1.rec.Holder)
	}
	if err := l1.release(); err != nil {
		t.Fatal(err)
	}
	l2, err := acquireBucketLease(ctx, b, "s3://bkt/ck", time.Hour, time.Now)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	defer l2.release()
	if l2.gen != l1.gen+1 {
		t.Fatalf("generation %d after %d", l2.gen, l1.gen)
	}
}

// TestBucketLeaseTakenOverOnlyAfterExpiry: a holder that stops renewing
// (killed) keeps its checkpoint until its TTL has passed; then one query
// takes over, and the old holder's writes fail naming the new holder,
// writing nothing.
func TestBucketLeaseTakenOverOnlyAfterExpiry(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	old, err := acquireBucketLease(ctx, b, "s3://bkt/ck", time.Hour, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	crash(old)
	if _, err := acquireBucketLease(ctx, b, "s3://bkt/ck", time.Hour, time.Now); !errors.Is(err, ErrInUse) {
		t.Fatalf("takeover before expiry: %v, want ErrInUse", err)
	}
	next, err := acquireBucketLease(ctx, b, "s3://bkt/ck", time.Hour, later)
	if err != nil {
		t.Fatalf("takeover after expiry: %v", err)
	}
	defer next.release()
	c := &Checkpoint{bucket: b, location: "s3://bkt/ck", blease: old}
	err = c.WriteCommit(ctx, 7, CommitMetadata{})
	if !errors.Is(err, ErrLeaseLost) || !strings.Contains(err.Error(), next.rec.Holder) {
		t.Fatalf("old holder's write: %v, want ErrLeaseLost naming %q", err, next.rec.Holder)
	}
	if ok, _ := b.Exists(ctx, "commits/7"); ok {
		t.Fatal("the old holder wrote commits/7 after losing its lease")
	}
	if err := old.release(); err != nil { // must leave the new lease alone
		t.Fatal(err)
	}
	if _, err := acquireBucketLease(ctx, b, "s3://bkt/ck", time.Hour, time.Now); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), next.rec.Holder) {
		t.Fatalf("after the old holder's release: %v, want the new holder still holding", err)
	}
}

// TestBucketLeaseOneTakerWins: queries racing to take over one expired
// lease: the conditional create lets exactly one through.
func TestBucketLeaseOneTakerWins(t *testing.T) {
	ctx := context.Background()
	b := memblob.OpenBucket(nil)
	defer b.Close()
	old, err := acquireBucketLease(ctx, b, "s3://bkt/ck", time.Hour, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	crash(old)
	const takers = 8
	var mu sync.Mutex
	var won []*bucketLease
	var refused int
	var wg sync.WaitGroup
	for range takers {
		wg.Go(func() {
			l, err := acquireBucketLease(ctx, b, "s3://bkt/ck", time.Hour, later)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, l)
			case errors.Is(err, ErrInUse):
				refused++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	// "later" sees every lease expired, so a loser may take over from the
	// winner in turn: the generations must still be a single chain, each
	// taker holding a distinct one, and only the newest may write.
	gens := map[int64]bool{}
	for _, l := range won {
		if gens[l.gen] {
			t.Fatalf("two takers hold generation %d", l.gen)
		}
		gens[l.gen] = true
	}
	if len(won)+refused != takers || len(won) == 0 {
		t.Fatalf("%d won, %d refused of %d", len(won), refused, takers)
	}
	writers := 0
	for _, l := range won {
		if l.check(ctx) == nil {
			writers++
		}
		l.release()
	}
	if writers != 1 {
		t.Fatalf("%d takers may write, want exactly 1", writers)
	}
}
