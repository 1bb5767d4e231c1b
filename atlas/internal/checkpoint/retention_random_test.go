package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas/internal/ckpath"
	"github.com/atlas-lakehouse/atlas/atlas/internal/s3test"
)

// The randomized test drives simulated queries and the retention steps in
// a random interleaving. Each query reads its own deterministic source
// (batch b is rows b*rowsPerBatch ... +rowsPerBatch-1) into its own result
// table through an idempotent sink keyed by (query id, batch id), the
// query id coming from the checkpoint's metadata, as Atlas's sinks do. A
// checkpoint deleted while its query may still run or resume makes the
// query start over under a new id, and its table then holds duplicate
// rows; a deleted checkpoint that was not retired in the model fails the
// test at once.

const rowsPerBatch = 3

// simState is a simulated query's state in the model.
type simState int

const (
	simIdle simState = iota // never started, or between runs without a terminal record
	simRunning
	simStopped
	simCrashed
	simStalled
	simRetired
	simDeleted
)

// simQuery is one simulated query.
type simQuery struct {
	name  string
	loc   string
	state simState
	ck    *Checkpoint // while running or stalled
	// resumable: the server holds a resume record for it.
	resumable bool
}

// simTable is a result table: how often each row was appended, and the
// (query id, batch id) pairs its sink committed.
type simTable struct {
	rows      map[int]int
	committed map[string]bool
}

type simWorld struct {
	t       *testing.T
	rng     *rand.Rand
	opts    Options
	root    string
	queries []*simQuery
	tables  map[string]*simTable
	local   bool
	log     []string
}

func (w *simWorld) step(format string, args ...any) {
	w.log = append(w.log, fmt.Sprintf(format, args...))
}

// fail reports the step log.
func (w *simWorld) fail(format string, args ...any) {
	w.t.Helper()
	start := max(0, len(w.log)-25)
	w.t.Fatalf("%s\nlast steps:\n  %s", fmt.Sprintf(format, args...), joinLines(w.log[start:]))
}

func joinLines(s []string) string {
	out := ""
	for i, l := range s {
		if i > 0 {
			out += "\n  "
		}
		out += l
	}
	return out
}

// start opens q's checkpoint (a fresh run or a resume).
func (w *simWorld) start(q *simQuery) {
	ck, err := OpenWith(context.Background(), q.loc, w.opts)
	switch {
	case errors.Is(err, ErrInUse):
		w.step("start %s: refused, in use", q.name)
		return
	case errors.Is(err, ErrRetired):
		w.fail("start %s: retired, but the model did not retire it: %v", q.name, err)
	case err != nil:
		w.fail("start %s: %v", q.name, err)
	}
	if q.ck != nil && q.state == simStalled {
		w.step("start %s: took over from its stalled holder", q.name)
	} else {
		w.step("start %s", q.name)
		q.ck = nil
	}
	old := q.ck
	q.ck, q.state = ck, simRunning
	if old != nil {
		w.wake(q, old)
	}
}

// runBatch runs the next batch of a running query: offsets (write-ahead),
// the sink's idempotent append, the commit.
func (w *simWorld) runBatch(q *simQuery, ck *Checkpoint) error {
	ctx := context.Background()
	m, ok, err := ck.Metadata(ctx)
	if err != nil {
		return err
	}
	if !ok {
		m = Metadata{ID: uuid.NewString()}
		if err := ck.WriteMetadata(ctx, m); err != nil {
			return err
		}
	}
	next := int64(0)
	if id, _, ok, err := ck.LatestCommit(ctx); err != nil {
		return err
	} else if ok {
		next = id + 1
	}
	if err := ck.WriteOffsets(ctx, OffsetSeq{BatchID: next}); err != nil {
		return err
	}
	tb := w.tables[q.name]
	if key := fmt.Sprintf("%s/%d", m.ID, next); !tb.committed[key] {
		tb.committed[key] = true
		for j := range rowsPerBatch {
			tb.rows[int(next)*rowsPerBatch+j]++
		}
	}
	return ck.WriteCommit(ctx, next, CommitMetadata{})
}

// wake lets a stalled holder's handle try to write: it must have lost its
// lease (another query holds the checkpoint now) and write nothing.
func (w *simWorld) wake(q *simQuery, old *Checkpoint) {
	err := w.runBatch(q, old)
	if !errors.Is(err, ErrLeaseLost) {
		w.fail("the stalled holder of %s wrote after a takeover: %v", q.name, err)
	}
	old.bucket.Close()
	w.step("wake %s's stalled holder: lease lost, nothing written", q.name)
}

// retention runs plan, prepare and apply, each with a chance of being the
// last step of the cycle, and checks every deletion against the model.
func (w *simWorld) retention() {
	ctx := context.Background()
	records := map[string]string{}
	for _, q := range w.queries {
		if q.resumable {
			records[q.loc] = "queries/" + q.name + ".json"
		}
	}
	opts := InspectOptions{Options: w.opts, ResumeRecords: func() (map[string]string, error) { return records, nil }}
	now := afterQuarantine()
	plan, err := PlanRetention(ctx, w.root, month, opts, now)
	if err != nil {
		w.fail("plan: %v", err)
	}
	byLoc := map[string]*simQuery{}
	for _, q := range w.queries {
		byLoc[q.loc] = q
	}
	for _, pc := range plan.Delete {
		if q := byLoc[pc.Location]; q == nil || q.state != simRetired {
			w.fail("plan lists %s for deletion, which the model has %v", pc.Location, q)
		}
		if pc.State == Active || pc.State == Uncertain {
			w.fail("plan lists the %s checkpoint %s", pc.State, pc.Location)
		}
	}
	w.step("plan: %d to delete", len(plan.Delete))
	if w.rng.IntN(3) == 0 {
		return // reviewed and dropped
	}
	w.act() // the world moves on between the steps
	prep, err := Prepare(ctx, plan, opts, now, func(string, string) {})
	if err != nil {
		w.fail("prepare: %v", err)
	}
	w.step("prepare: %d staged", len(prep.Leaves))
	w.act()
	err = ApplyRetention(ctx, prep, opts, now, func(loc string, _ int) {
		q := byLoc[loc]
		if q == nil || q.state != simRetired {
			w.fail("apply deleted %s, which the model has %v", loc, q)
		}
		q.state = simDeleted
		w.step("apply: deleted %s", q.name)
	}, func(loc, why string) { w.step("apply: kept %s: %s", loc, why) })
	if err != nil {
		w.fail("apply: %v", err)
	}
}

// act does one random thing to one random query.
func (w *simWorld) act() {
	q := w.queries[w.rng.IntN(len(w.queries))]
	switch q.state {
	case simIdle, simCrashed:
		if w.rng.IntN(4) == 0 {
			q.resumable = !q.resumable
			w.step("%s: resume record %v", q.name, q.resumable)
			return
		}
		w.start(q)
	case simStalled:
		if w.local || w.rng.IntN(2) == 0 {
			// A local holder keeps its flock while frozen: it thaws.
			w.step("%s thaws", q.name)
			q.state = simRunning
			if !w.local {
				w.thawBucket(q)
			}
			return
		}
		w.start(q) // take over once its lease expired (else refused)
	case simRunning:
		switch w.rng.IntN(6) {
		case 0, 1, 2:
			if err := w.runBatch(q, q.ck); err != nil {
				w.fail("batch of %s: %v", q.name, err)
			}
			w.step("%s ran a batch", q.name)
		case 3:
			if err := q.ck.Close(); err != nil {
				w.fail("stop %s: %v", q.name, err)
			}
			q.ck, q.state = nil, simStopped
			w.step("stop %s", q.name)
		case 4:
			w.crash(q)
		case 5:
			if !w.local {
				q.ck.blease.halt()
			}
			q.state = simStalled
			w.step("%s stalls", q.name)
		}
	case simStopped:
		if w.rng.IntN(2) == 0 {
			w.start(q)
			return
		}
		if err := Register(context.Background(), q.loc, testIdentity(q.name), false, w.opts); err != nil {
			w.fail("register %s: %v", q.name, err)
		}
		if err := Retire(context.Background(), q.loc, Retirement{ReviewedBy: "r", RecoveryApprovedBy: "a"}, w.opts); err != nil {
			w.fail("retire %s: %v", q.name, err)
		}
		q.state = simRetired
		w.step("retire %s", q.name)
	}
}

// crash kills a running query: no terminal record.
func (w *simWorld) crash(q *simQuery) {
	if w.local {
		crashLocal(q.ck)
	} else {
		q.ck.blease.halt()
		q.ck.bucket.Close()
	}
	q.ck, q.state = nil, simCrashed
	w.step("crash %s", q.name)
}

// thawBucket restarts the renewals of a stalled S3 holder that kept its
// lease; one that lost it stops.
func (w *simWorld) thawBucket(q *simQuery) {
	l := q.ck.blease
	l.renewOnce(context.Background())
	if l.check(context.Background()) != nil {
		w.wake(q, q.ck)
		q.ck, q.state = nil, simCrashed
		return
	}
	l.stop, l.done, l.stopOnce = make(chan struct{}), make(chan struct{}), sync.Once{}
	go l.renew()
}

// check asserts the invariant: no table holds a row twice (a checkpoint
// lost under a query that runs or resumes restarts it under a new query
// id, which appends its batches again).
func (w *simWorld) check() {
	for _, q := range w.queries {
		for row, n := range w.tables[q.name].rows {
			if n != 1 {
				w.fail("table of %s holds row %d %d times", q.name, row, n)
			}
		}
	}
}

func runRandomRetention(t *testing.T, root string, opts Options, local bool, seed uint64, steps int) {
	w := &simWorld{t: t, rng: rand.New(rand.NewPCG(seed, 19)), opts: opts, root: root, tables: map[string]*simTable{}, local: local}
	names := []string{"a", "b", "c", "d"}
	for _, n := range names {
		w.queries = append(w.queries, &simQuery{name: n, loc: ckpath.Join(root, n)})
	}
	// Nested queries: inside a's folder, and two deep inside b's.
	w.queries = append(w.queries, &simQuery{name: "a-nested", loc: ckpath.Join(root, "a/nested")},
		&simQuery{name: "b-deep", loc: ckpath.Join(root, "b/x/deep")})
	for _, q := range w.queries {
		w.tables[q.name] = &simTable{rows: map[int]int{}, committed: map[string]bool{}}
	}
	for i := 0; i < steps; i++ {
		if w.rng.IntN(5) == 0 {
			w.retention()
		} else {
			w.act()
		}
		w.check()
	}
	for _, q := range w.queries {
		if q.ck != nil && (q.state == simRunning || q.state == simStalled) {
			q.ck.Close()
		}
	}
	deleted := 0
	for _, q := range w.queries {
		if q.state == simDeleted {
			deleted++
		}
	}
	t.Logf("seed %d: %d steps, %d checkpoints deleted", seed, steps, deleted)
}

// TestRandomRetentionLocal interleaves plan, prepare and apply with
// running, stopped, crashed, stalled, resumed and nested queries on local
// checkpoints, over several seeds.
func TestRandomRetentionLocal(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			runRandomRetention(t, t.TempDir(), Options{Logf: t.Logf}, true, seed, 250)
		})
	}
}

// TestRandomRetentionS3 does the same on real S3 (MinIO), with leases of
// 300ms, so that stalled holders lose theirs.
func TestRandomRetentionS3(t *testing.T) {
	s3b := s3test.New(t)
	s3b.SetAWSEnv(t)
	runRandomRetention(t, s3b.BlobURL("rand"), Options{LeaseTTL: 300 * time.Millisecond, Logf: t.Logf}, false, 0, 90)
}
