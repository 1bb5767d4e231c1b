// Package soak runs a streaming query for many micro-batches and measures
// whether a batch late in the run costs what it cost early: batch time,
// table metadata, data and delete files, manifests, checkpoint size, process
// memory and SQL latency on the table, per tenth of the run. `atlas bench
// soak` prints it; the long-run tests assert its bounds.
//
// The input is Spark's rate-micro-batch source (exactly rowsPerBatch rows
// per batch, one simulated second apart), so a run of N batches is N
// batches whatever the machine's speed, and its result is known in
// advance: every run is checked against a reference computed from the
// generated values.
package soak

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// Variants of the soak query.
const (
	// Append appends every batch's rows to a table.
	Append = "append"
	// Windows counts rows per 10-second event-time window with a 10-second
	// watermark, appending each window once it closes (every 10 batches).
	Windows = "windows"
	// CDC merges every batch into a keyed merge-on-read table
	// (foreachBatch + MERGE INTO: update the matched keys, insert the
	// others), as scenario 2 does.
	CDC = "cdc"
)

// Options describe a soak run.
type Options struct {
	// Variant is Append, Windows or CDC.
	Variant string
	// Batches is the number of micro-batches (at least 10).
	Batches int
	// RowsPerBatch is the rows of each batch. Default 10.
	RowsPerBatch int
	// Keys is the key space of CDC (values are merged into key value %
	// Keys). Default 20 * RowsPerBatch.
	Keys int
	// Dir holds the checkpoint. The session's lakehouse holds the table.
	Dir string
	// TableProperties are set on the table when it is created (maintenance
	// thresholds of a CI-sized run).
	TableProperties map[string]string
	// SQLEvery is the period of the SQL probe on the table (0: none).
	SQLEvery time.Duration
	// OnDecile, when set, is called with each tenth as it completes.
	OnDecile func(Decile)
}

// Decile is what one tenth of the run cost and left.
type Decile struct {
	// Index is 1..10; FirstBatch and LastBatch are its batch ids.
	Index, FirstBatch, LastBatch int
	// P50 and P99 are the batch times (triggerExecution) of its batches.
	P50, P99 time.Duration
	// MetadataBytes is the size of the table's metadata folder at its end,
	// CheckpointBytes that of the checkpoint.
	MetadataBytes, CheckpointBytes int64
	// Health is the table's state at its end.
	Health lakehouse.Health
	// RSS is the process's resident memory at its end, in bytes.
	RSS int64
	// SQLQueries, SQLP50 and SQLP99 are the SQL probes that ended during it.
	SQLQueries     int
	SQLP50, SQLP99 time.Duration
	// Maintenance is what the automatic maintenance did so far.
	Maintenance lakehouse.MaintenanceStats
}

// Report is a whole run.
type Report struct {
	Options Options
	Table   string
	Deciles []Decile
	// Elapsed is the run's wall time.
	Elapsed time.Duration
	// Checked describes the reference check the table passed.
	Checked string
}

// Run runs the soak query of o on s until o.Batches batches committed, then
// checks the table against the reference of the variant.
func Run(ctx context.Context, s *engine.Session, o Options) (Report, error) {
	if o.RowsPerBatch <= 0 {
		o.RowsPerBatch = 10
	}
	if o.Keys <= 0 {
		o.Keys = 20 * o.RowsPerBatch
	}
	if o.Batches < 10 {
		return Report{}, fmt.Errorf("soak: %d batches; at least 10 are needed (one per decile)", o.Batches)
	}
	name := "lakehouse.bronze.soak_" + o.Variant
	rep := Report{Options: o, Table: name}
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return rep, err
	}
	_ = lh.DropTable(ctx, name, true)
	ck := filepath.Join(o.Dir, "checkpoint-"+o.Variant)
	_ = os.RemoveAll(ck)
	start := time.Now()
	// The listener is in place before the query starts: its first batch
	// may end before Start returns.
	m := newMeter(s, lh, name, ck, o)
	s.Streams().AddListener(m.listener())
	defer s.Streams().RemoveListener(m.listener())
	q, err := startQuery(ctx, s, lh, name, ck, o)
	if err != nil {
		return rep, err
	}
	stopSQL := m.probeSQL(ctx)
	runErr := m.wait(ctx, q)
	stopSQL()
	if err := q.Stop(); err != nil && runErr == nil {
		runErr = err
	}
	rep.Elapsed = time.Since(start)
	rep.Deciles = m.result()
	if runErr != nil {
		return rep, runErr
	}
	rep.Checked, err = check(ctx, s, name, o, m.lastBatch())
	return rep, err
}

// startQuery creates the table and starts the variant's query.
func startQuery(ctx context.Context, s *engine.Session, lh *lakehouse.Lakehouse, name, ck string, o Options) (*engine.StreamingQuery, error) {
	src := s.ReadStream().Format("rate-micro-batch").
		Option("rowsPerBatch", strconv.Itoa(o.RowsPerBatch)).
		Option("advanceMillisPerBatch", "1000").Load()
	props := map[string]string{}
	for k, v := range o.TableProperties {
		props[k] = v
	}
	switch o.Variant {
	case Append:
		if _, err := lh.CreateTable(ctx, name, rateSchema(), lakehouse.CreateOptions{Properties: props}); err != nil {
			return nil, err
		}
		return src.WriteStream().OutputMode("append").Option("checkpointLocation", ck).Progress(false).ToTable(name)
	case Windows:
		if _, err := lh.CreateTable(ctx, name, windowsSchema(), lakehouse.CreateOptions{Properties: props}); err != nil {
			return nil, err
		}
		agg := src.WithWatermark("timestamp", "10 seconds").
			GroupBy(engine.Window(engine.Col("timestamp"), "10 seconds")).Count().
			Select(engine.Col("window.start").Alias("window_start"), engine.Col("count"))
		return agg.WriteStream().OutputMode("append").Option("checkpointLocation", ck).Progress(false).ToTable(name)
	case CDC:
		props[lakehouse.PropMergeMode] = lakehouse.MergeOnRead
		if _, err := lh.CreateTable(ctx, name, cdcSchema(), lakehouse.CreateOptions{Properties: props}); err != nil {
			return nil, err
		}
		merge := fmt.Sprintf("MERGE INTO %s t USING (SELECT value %% %d AS id, value AS v, timestamp AS ts FROM soak_changes) s "+
			"ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *", name, o.Keys)
		return src.WriteStream().Option("checkpointLocation", ck).Progress(false).
			ForeachBatch(func(batch *engine.DataFrame, id int64) error {
				if err := batch.CreateOrReplaceTempView("soak_changes"); err != nil {
					return err
				}
				res, err := s.SQL(merge)
				if err != nil {
					return fmt.Errorf("batch %d: merge: %w", id, err)
				}
				_, err = res.Rows(ctx)
				return err
			}).Start()
	}
	return nil, fmt.Errorf("soak: unknown variant %q: use %s, %s or %s", o.Variant, Append, Windows, CDC)
}

// meter collects batch times, samples the table at each decile and probes
// SQL latency.
type meter struct {
	s    *engine.Session
	lh   *lakehouse.Lakehouse
	name string
	ck   string
	o    Options
	l    *engine.StreamingQueryListenerFuncs

	mu      sync.Mutex
	times   []time.Duration // batch times, by batch id
	sql     [][]time.Duration
	deciles []Decile
	sqlErr  error
	done    chan struct{}
	once    sync.Once
	failed  error
}

func newMeter(s *engine.Session, lh *lakehouse.Lakehouse, name, ck string, o Options) *meter {
	m := &meter{s: s, lh: lh, name: name, ck: ck, o: o, sql: make([][]time.Duration, 10), done: make(chan struct{})}
	m.l = &engine.StreamingQueryListenerFuncs{
		Progress: func(e *engine.QueryProgressEvent) {
			m.batch(e.Progress.BatchID, time.Duration(e.Progress.BatchDuration)*time.Millisecond)
		},
		Terminated: func(e *engine.QueryTerminatedEvent) {
			if e.Exception != nil {
				m.finish(errors.New(*e.Exception))
			}
		},
	}
	return m
}

func (m *meter) listener() engine.StreamingQueryListener { return m.l }

// batch records batch id's time; at a decile's end it samples the table.
func (m *meter) batch(id int64, d time.Duration) {
	m.mu.Lock()
	if int(id) != len(m.times) || int(id) >= m.o.Batches {
		m.mu.Unlock()
		return
	}
	m.times = append(m.times, d)
	n := len(m.times)
	m.mu.Unlock()
	per := m.o.Batches / 10
	if n%per == 0 && n/per <= 10 {
		m.sample(n / per)
	}
	if n == m.o.Batches {
		m.finish(nil)
	}
}

func (m *meter) finish(err error) {
	m.once.Do(func() {
		m.failed = err
		close(m.done)
	})
}

// wait returns when the run reached its batches or the query failed.
func (m *meter) wait(ctx context.Context, q *engine.StreamingQuery) error {
	select {
	case <-m.done:
		return m.failed
	case <-q.Done():
		if err := q.Exception(); err != nil {
			return err
		}
		return fmt.Errorf("soak: the query stopped after %d batches", m.lastBatch()+1)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (m *meter) lastBatch() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return int64(len(m.times)) - 1
}

// sample records decile k (1..10), which just ended.
func (m *meter) sample(k int) {
	ctx := context.Background()
	per := m.o.Batches / 10
	m.mu.Lock()
	times := slices.Clone(m.times[(k-1)*per : k*per])
	sql := slices.Clone(m.sql[k-1])
	m.mu.Unlock()
	d := Decile{Index: k, FirstBatch: (k - 1) * per, LastBatch: k*per - 1}
	d.P50, d.P99 = quantile(times, 0.50), quantile(times, 0.99)
	d.SQLQueries, d.SQLP50, d.SQLP99 = len(sql), quantile(sql, 0.50), quantile(sql, 0.99)
	if tb, err := m.lh.LoadTable(ctx, m.name); err == nil {
		d.Health, _ = tb.Health(ctx)
		if u, err := url.Parse(tb.Location()); err == nil && u.Scheme == "file" {
			d.MetadataBytes = DirBytes(filepath.Join(u.Path, "metadata"))
		}
		d.Maintenance, _ = tb.MaintenanceStats()
	}
	d.CheckpointBytes = DirBytes(m.ck)
	d.RSS = RSS()
	m.mu.Lock()
	m.deciles = append(m.deciles, d)
	m.mu.Unlock()
	if m.o.OnDecile != nil {
		m.o.OnDecile(d)
	}
}

func (m *meter) result() []Decile {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.deciles)
}

// probeSQL runs SELECT count(*) on the table every SQLEvery until stopped,
// recording each latency in the decile running when it ended.
func (m *meter) probeSQL(ctx context.Context) (stop func()) {
	if m.o.SQLEvery <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(m.o.SQLEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			t0 := time.Now()
			df, err := m.s.SQLContext(ctx, "SELECT count(*) AS n FROM "+m.name)
			if err == nil {
				_, err = df.Rows(ctx)
			}
			d := time.Since(t0)
			if err != nil {
				continue // the table may not exist before the first commit
			}
			m.mu.Lock()
			k := min(9, len(m.times)*10/m.o.Batches)
			m.sql[k] = append(m.sql[k], d)
			m.mu.Unlock()
		}
	})
	return func() { cancel(); wg.Wait() }
}

// quantile returns the q-quantile of ds (0 when empty).
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// DirBytes sums the sizes of the files under dir (0 when missing).
func DirBytes(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// RSS returns the process's resident set size in bytes (0 where
// /proc/self/status is not available).
func RSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
