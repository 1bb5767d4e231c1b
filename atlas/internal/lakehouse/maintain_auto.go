package lakehouse

import (
	"cmp"
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// MaintenanceOptions tune the automatic maintenance of StartMaintenance.
type MaintenanceOptions struct {
	// CheckEvery is how many streaming commits to a table pass between two
	// maintenance runs on it (each run does only what is due, often
	// nothing). Default 10.
	CheckEvery int
	// hook is passed to every run (see MaintainOptions.hook).
	hook func(step string)
}

// MaintenanceStats are what the automatic maintenance did to one table
// since the lakehouse was opened.
type MaintenanceStats struct {
	// Runs counts the maintenance runs, Errors the ones that failed.
	Runs, Errors int64
	// LastRun is when the last run ended; Last is what it did.
	LastRun time.Time
	Last    MaintainResult
	// LastError is the last failed run's error, "" when none failed.
	LastError string
	// Totals over every run.
	SnapshotsExpired, ManifestsReplaced, FilesCompacted, FilesWithDeletesFolded, CompactConflicts, OrphansRemoved int64
	// ConcurrentFolds counts the compaction bins written again at commit
	// to fold deletes committed meanwhile (CompactResult.ConcurrentFolds).
	ConcurrentFolds int64
}

// StartMaintenance makes the lakehouse maintain the tables streams write:
// every CheckEvery commits that carry a query id (AppendBatch, MERGE and
// the other writes of a micro-batch) to a table, a background goroutine of
// that table runs Maintain with whatever is due (compaction and orphan
// removal every PropCompactEveryCommits commits). It runs off the stream's
// path: the commit only counts and signals; planning, reading and writing
// files happen in the background. Maintenance commits through the Table
// the stream last committed with, so in this process its commits and the
// stream's take turns (a stream commit waits at most for one maintenance
// commit, never for a compaction's reading and writing) instead of racing:
// a compaction of minutes beside a stream committing every second would
// otherwise lose every race (apache/iceberg#1286). Against writers in other
// processes every commit is optimistic, retried on the new state. Close
// stops it. Calling it again changes nothing.
func (l *Lakehouse) StartMaintenance(o MaintenanceOptions) {
	if o.CheckEvery <= 0 {
		o.CheckEvery = 10
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &autoMaintenance{lh: l, opts: o, ctx: ctx, cancel: cancel, workers: map[string]*maintWorker{}}
	if !l.auto.CompareAndSwap(nil, m) {
		cancel()
	}
}

// MaintenanceStats returns what the automatic maintenance did to the table
// name (see ParseIdent: "db.t" and "lakehouse.db.t" are one table); ok is
// false when it never ran on it.
func (l *Lakehouse) MaintenanceStats(name string) (MaintenanceStats, bool) {
	m := l.auto.Load()
	if m == nil {
		return MaintenanceStats{}, false
	}
	if _, full, err := l.resolve(name); err == nil {
		name = full
	}
	m.mu.Lock()
	w := m.workers[name]
	m.mu.Unlock()
	if w == nil {
		return MaintenanceStats{}, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats, w.stats.Runs > 0
}

// MaintenanceStats is Lakehouse.MaintenanceStats of the table.
func (t *Table) MaintenanceStats() (MaintenanceStats, bool) { return t.lh.MaintenanceStats(t.name) }

// Plus returns the totals of s and o (several tables): counts added, the
// last run the later one's.
func (s MaintenanceStats) Plus(o MaintenanceStats) MaintenanceStats {
	if o.LastRun.After(s.LastRun) {
		s.LastRun, s.Last, s.LastError = o.LastRun, o.Last, cmp.Or(o.LastError, s.LastError)
	}
	s.Runs += o.Runs
	s.Errors += o.Errors
	s.SnapshotsExpired += o.SnapshotsExpired
	s.ManifestsReplaced += o.ManifestsReplaced
	s.FilesCompacted += o.FilesCompacted
	s.FilesWithDeletesFolded += o.FilesWithDeletesFolded
	s.CompactConflicts += o.CompactConflicts
	s.OrphansRemoved += o.OrphansRemoved
	s.ConcurrentFolds += o.ConcurrentFolds
	return s
}

// autoMaintenance is the state of StartMaintenance.
type autoMaintenance struct {
	lh     *Lakehouse
	opts   MaintenanceOptions
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	workers map[string]*maintWorker
	stopped bool
}

// maintWorker maintains one table.
type maintWorker struct {
	name    string
	kick    chan struct{}
	commits atomic.Int64
	busy    atomic.Bool
	// table is the Table the last stream commit went through.
	table atomic.Pointer[Table]

	mu    sync.Mutex
	stats MaintenanceStats
}

// streamCommitted is called by every successful commit carrying a query
// id: it counts the commit and wakes the table's worker, never blocking.
func (l *Lakehouse) streamCommitted(t *Table) {
	name := t.name
	m := l.auto.Load()
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return
	}
	w := m.workers[name]
	if w == nil {
		w = &maintWorker{name: name, kick: make(chan struct{}, 1)}
		m.workers[name] = w
		m.wg.Add(1)
		go m.run(w)
	}
	m.mu.Unlock()
	w.table.Store(t)
	w.commits.Add(1)
	select {
	case w.kick <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// stop ends every worker and waits for them.
func (m *autoMaintenance) stop() {
	m.mu.Lock()
	m.stopped = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
}

// run is a table's worker loop.
func (m *autoMaintenance) run(w *maintWorker) {
	defer m.wg.Done()
	var (
		tb                     *Table
		lastCheck, lastCompact int64
	)
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-w.kick:
		}
		n := w.commits.Load()
		if n-lastCheck < int64(m.opts.CheckEvery) {
			continue
		}
		lastCheck = n
		w.busy.Store(true)
		if t := w.table.Load(); t != nil {
			tb = t
		}
		o := MaintainOptions{hook: m.opts.hook}
		if every := readMaintenanceProps(tb.Properties()).compactEvery; n-lastCompact >= int64(every) {
			o.Compact, o.Orphans = true, true
			lastCompact = n
		}
		res, err := tb.Maintain(m.ctx, o)
		if m.ctx.Err() == nil {
			w.record(res, err)
		}
		w.busy.Store(false)
	}
}

// record adds a run to the worker's stats.
func (w *maintWorker) record(res MaintainResult, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := &w.stats
	s.Runs++
	s.LastRun = time.Now()
	s.Last = res
	if err != nil {
		s.Errors++
		s.LastError = err.Error()
	}
	s.SnapshotsExpired += int64(res.SnapshotsExpired)
	s.ManifestsReplaced += int64(res.ManifestsReplaced)
	s.FilesCompacted += int64(res.Compact.FilesRemoved)
	s.FilesWithDeletesFolded += int64(res.Compact.FilesWithDeletes)
	s.CompactConflicts += int64(res.CompactConflicts)
	s.ConcurrentFolds += int64(res.Compact.ConcurrentFolds)
	s.OrphansRemoved += int64(res.OrphansRemoved)
}

// idle reports whether no worker is running or has a wake-up pending (for
// tests that wait for maintenance to settle).
func (m *autoMaintenance) idle() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range m.workers {
		if w.busy.Load() || len(w.kick) > 0 {
			return false
		}
	}
	return true
}
