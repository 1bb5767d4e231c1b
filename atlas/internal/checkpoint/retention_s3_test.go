package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/atlas-lakehouse/atlas/atlas/internal/s3test"
)

// TestConditionalWritesOnS3: the MinIO server honours If-None-Match: * on
// create and If-Match on replace, through gocloud and aws-sdk-go-v2: the
// compare-and-swap retention and the leases rely on.
func TestConditionalWritesOnS3(t *testing.T) {
	ctx := context.Background()
	s3b := s3test.New(t)
	s3b.SetAWSEnv(t)
	b, err := blob.OpenBucket(ctx, s3b.BucketURL())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	st := store{b: b}
	if err := st.createIfAbsent(ctx, "k", []byte(`{"v":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := st.createIfAbsent(ctx, "k", []byte(`{"v":2}`)); !errors.Is(err, errChanged) {
		t.Fatalf("second create: %v, want errChanged", err)
	}
	etag, err := st.etagOf(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.replaceIfMatch(ctx, "k", []byte(`{"v":3}`), etag); err != nil {
		t.Fatalf("replace with the current ETag: %v", err)
	}
	if err := st.replaceIfMatch(ctx, "k", []byte(`{"v":4}`), etag); !errors.Is(err, errChanged) {
		t.Fatalf("replace with a stale ETag: %v, want errChanged (If-Match ignored?)", err)
	}
	if got, _ := b.ReadAll(ctx, "k"); string(got) != `{"v":3}` {
		t.Fatalf("k = %s, want the one replace that matched", got)
	}
}

// TestStalledS3HolderIsUncertainAndLogged is the third failure on
// real S3: a query frozen past its lease (SIGSTOP) left its checkpoint
// "not held", and retention deleted it. Now an expired lease without a
// terminal record is uncertain and never planned, even with a retirement
// recorded by hand; and when the stalled holder wakes after another query
// took over, it logs the lost lease and writes nothing.
func TestStalledS3HolderIsUncertainAndLogged(t *testing.T) {
	ctx := context.Background()
	s3b := s3test.New(t)
	s3b.SetAWSEnv(t)
	var mu sync.Mutex
	var logged []string
	logf := func(f string, a ...any) { mu.Lock(); logged = append(logged, fmt.Sprintf(f, a...)); mu.Unlock() }
	loc := s3b.BlobURL("ck/stalled")
	ck, err := OpenWith(ctx, loc, Options{LeaseTTL: time.Second, Logf: logf})
	if err != nil {
		t.Fatal(err)
	}
	writeN(t, ck, 0, 2)
	if err := Register(ctx, loc, testIdentity("stalled"), false, Options{}); err != nil {
		t.Fatal(err)
	}
	ck.blease.halt() // frozen: no more renewals
	time.Sleep(1500 * time.Millisecond)
	b, _ := blob.OpenBucket(ctx, s3b.BucketURL())
	defer b.Close()
	if err := b.WriteAll(ctx, "ck/stalled/"+retirementKey, []byte(`{"reviewed_by":"x","recovery_approved_by":"y","retired_at":"2020-01-01T00:00:00Z"}`), nil); err != nil {
		t.Fatal(err)
	}
	plan, err := PlanRetention(ctx, s3b.BlobURL("ck"), month, InspectOptions{}, afterQuarantine())
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Delete) != 0 || len(plan.Keep) != 1 || plan.Keep[0].State != Uncertain || !strings.Contains(plan.Keep[0].Reason, "stalled") {
		t.Fatalf("plan deletes %v, keeps %+v; want the stalled checkpoint kept as uncertain", locations(plan.Delete), plan.Keep)
	}
	// Another query takes over the expired lease (the retirement removed
	// first, as an operator undoing it would), then the holder wakes.
	b.Delete(ctx, "ck/stalled/"+retirementKey)
	next, err := Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	ck.blease.renewOnce(ctx)
	if err := ck.WriteCommit(ctx, 2, CommitMetadata{}); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("the woken holder's write: %v, want ErrLeaseLost", err)
	}
	if keys := s3b.Keys(t, "ck/stalled/commits/"); !slices.Equal(keys, []string{"ck/stalled/commits/0", "ck/stalled/commits/1"}) {
		t.Fatalf("commits after the stalled holder woke: %v", keys)
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(logged, "\n")
	if !strings.Contains(all, "did not renew its lease") || !strings.Contains(all, "was taken over by") || strings.Count(all, "was taken over by") != 1 {
		t.Fatalf("logged:\n%s\nwant the stall and the lost lease, once", all)
	}
}

// TestRetentionOnS3: plan, prepare and apply on real S3 delete the retired
// leaf's objects only; a running query's nested checkpoint (failure 1) and
// a stopped one keep every object, and the running query writes on.
func TestRetentionOnS3(t *testing.T) {
	ctx := context.Background()
	s3b := s3test.New(t)
	s3b.SetAWSEnv(t)
	root := s3b.BlobURL("ck")
	at := func(rel string) string { return s3b.BlobURL("ck/" + rel) }
	writeBatches(t, at("retired"), 2)
	retire(t, at("retired"), Options{})
	writeBatches(t, at("stopped"), 2)
	running, err := Open(ctx, at("team/nested"))
	if err != nil {
		t.Fatal(err)
	}
	defer running.Close()
	writeN(t, running, 0, 2)
	keep := map[string][]string{}
	for _, rel := range []string{"stopped/", "team/"} {
		keep[rel] = s3b.Keys(t, "ck/"+rel)
	}
	plan, deleted, left := planPrepareApply(t, root, InspectOptions{}, afterQuarantine())
	for _, pc := range plan.Keep {
		t.Logf("kept %s: %s", pc.Location, pc.Reason)
	}
	if got := locations(plan.Delete); !slices.Equal(got, []string{at("retired")}) || !slices.Equal(deleted, []string{at("retired")}) || len(left) != 0 {
		t.Fatalf("planned %v, deleted %v, left %v; want only the retired checkpoint", got, deleted, left)
	}
	if keys := s3b.Keys(t, "ck/retired/"); len(keys) != 0 {
		t.Fatalf("left of the retired checkpoint: %v", keys)
	}
	for rel, before := range keep {
		if got := s3b.Keys(t, "ck/"+rel); !slices.Equal(got, before) {
			t.Fatalf("ck/%s changed: %v, was %v", rel, got, before)
		}
	}
	writeN(t, running, 2, 1)
	if _, err := Open(ctx, at("team/nested")); !errors.Is(err, ErrInUse) {
		t.Fatalf("a second engine on the running checkpoint: %v, want ErrInUse", err)
	}
}
