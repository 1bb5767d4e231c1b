package checkpoint

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/atlas-lakehouse/atlas/atlas/internal/s3test"
)

// TestBucketLeaseOnS3ConditionalCreate runs the takeover race on a real S3
// server (ATLAS_TEST_S3_ENDPOINT): its If-None-Match: * lets exactly one of
// the queries creating a generation through, and only the newest holder
// may write.
func TestBucketLeaseOnS3ConditionalCreate(t *testing.T) {
	ctx := context.Background()
	s3b := s3test.New(t)
	s3b.SetAWSEnv(t)
	b, err := blob.OpenBucket(ctx, s3b.BucketURL())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	old, err := acquireBucketLease(ctx, b, "s3://"+s3b.Name, time.Hour, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	crash(old)
	if _, err := acquireBucketLease(ctx, b, "s3://"+s3b.Name, time.Hour, time.Now); !errors.Is(err, ErrInUse) {
		t.Fatalf("takeover before expiry: %v, want ErrInUse", err)
	}
	// Create the next generation from several goroutines at once, bypassing
	// the listing, so that they really collide on one object name.
	const racers = 6
	var mu sync.Mutex
	created := 0
	var wg sync.WaitGroup
	for range racers {
		wg.Go(func() {
			err := b.WriteAll(ctx, leaseKey(old.gen+1), []byte(`{"holder":"racer","token":"racer-token"}`), &blob.WriterOptions{IfNotExist: true})
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				created++
			}
		})
	}
	wg.Wait()
	if created != 1 {
		t.Fatalf("%d of %d conditional creates of one generation succeeded on S3, want exactly 1", created, racers)
	}
	if err := old.check(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("old holder after the takeover: %v, want ErrLeaseLost", err)
	}
}
