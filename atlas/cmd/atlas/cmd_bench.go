package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/atlas-lakehouse/atlas/atlas/internal/scenarios"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source/kafka"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

func init() {
	register(command{
		Name:    "bench",
		Summary: "measure a path: `bench windows` (raw Kafka consume vs parse+watermark+window count+Iceberg commits), `bench cdc` (MERGE of change batches into a 1M-row Iceberg table), `bench soak` (N micro-batches per variant with table maintenance: batch time, metadata, files, manifests, checkpoint, RSS and SQL latency per decile)",
		Run:     runBench,
	})
}

func runBench(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: atlas bench windows [--events N] | atlas bench cdc [--batch-size N] [--update-window N] (see atlas bench cdc -h)")
	}
	switch args[0] {
	case "windows":
		return benchWindows(ctx, args[1:])
	}
	if b, ok := benches[args[0]]; ok {
		return b(ctx, args[1:])
	}
	return fmt.Errorf("unknown benchmark %q: use windows or cdc", args[0])
}

// benches lets other files add benchmarks (bench cdc).
var benches = map[string]func(context.Context, []string) error{}

func benchWindows(ctx context.Context, args []string) error {
	fs := newFlagSet("bench windows", "[--events N] [--max-offsets-per-trigger N] [--compare-at N]")
	n := fs.Int64("events", 1_000_000, "events to produce and process")
	maxOff := fs.Int64("max-offsets-per-trigger", 200_000, "records per micro-batch")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the end-to-end run to this file (go tool pprof)")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the end-to-end run to this file (go tool pprof -sample_index=alloc_space)")
	compareAt := fs.Int64("compare-at", 0, "also print the query's peak RSS over its first N events, to compare with the peak over all of them (memory that grows with the stream)")
	parallelism := fs.Int("parallelism", 0, "goroutines running the query's parsing and projections (atlas.streaming.parallelism; 0 = one per core, 1 = one)")
	heapProfile := fs.String("heapprofile", "", "write in-use heap profiles to PREFIX.<events>.pb.gz when the query reaches --compare-at events and when it ends (go tool pprof -sample_index=inuse_space)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *parallelism < 0 {
		return fmt.Errorf("bench windows: --parallelism %d must be 0 (one per core) or more", *parallelism)
	}
	if *compareAt < 0 || *compareAt > *n {
		return fmt.Errorf("bench windows: --compare-at %d must be between 1 and --events (%d)", *compareAt, *n)
	}
	info, err := stack.EnsureUp(ctx, stack.Options{OwnDaemon: true})
	if err != nil {
		return err
	}
	brokers := stack.Brokers()
	topic := "bench_events_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := stack.EnsureTopic(ctx, brokers, topic, 3); err != nil {
		return err
	}
	// The broker keeps what it holds in memory: a topic left behind by
	// each run would make the next runs' broker slower (its garbage
	// collector scans every record it holds).
	defer deleteBenchTopic(brokers, topic)
	cl, err := stack.NewClient(brokers, produce.ProducerOpts()...)
	if err != nil {
		return err
	}
	t0 := time.Now()
	prodCPU := startCPU(info.PID)
	if _, err := produce.ProduceEvents(ctx, cl, produce.EventsConfig{Topic: topic, Count: *n, Seed: 1, Span: 4 * time.Hour, OutOfOrder: 0.1, Late: 0.01}, nil); err != nil {
		cl.Close()
		return err
	}
	cl.Close()
	prodDur := time.Since(t0)
	prodCPUs := prodCPU.since("producer")

	rawCPU := startCPU(info.PID)
	raw, rawDur, err := kafka.ConsumeRate(ctx, strings.Join(brokers, ","), topic)
	if err != nil {
		return err
	}
	rawRate := float64(raw) / rawDur.Seconds()
	rawCPUs := rawCPU.since("consumer")

	readCPU := startCPU(info.PID)
	read, readDur, err := kafka.ReadRate(ctx, strings.Join(brokers, ","), topic)
	if err != nil {
		return err
	}
	readCPUs := readCPU.since("source")

	home, err := os.MkdirTemp("", "atlas-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	s := engineBuilder("bench", home).GetOrCreate()
	if *parallelism > 0 {
		s.SetConf(engine.ConfStreamingParallelism, strconv.Itoa(*parallelism))
	}
	defer s.Stop()
	// The query's peak RSS is measured for the query alone: the producer
	// and the raw consume ran before it in this process, so their garbage
	// is collected and returned to the OS, and the kernel's high-water mark
	// is reset to the current RSS before the query starts.
	rssBefore := releaseAndResetPeakRSS()
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	watch := &peakWatch{at: *compareAt, heapProfile: *heapProfile}
	s.Streams().AddListener(watch.listener())
	t1 := time.Now()
	e2eCPU := startCPU(info.PID)
	q, err := scenarios.StartEventWindows(s, scenarios.EventsOptions{Topic: topic, MaxOffsetsPerTrigger: *maxOff}, "lakehouse.gold.bench_event_windows", filepath.Join(home, "ck"), engine.AvailableNow(), false)
	if err != nil {
		return err
	}
	if err := q.AwaitTermination(); err != nil {
		return err
	}
	e2eDur := time.Since(t1)
	e2eCPUs := e2eCPU.since("query")
	finalKB := kilobytes(peakRSS())
	if *heapProfile != "" {
		if _, _, err := watch.result(); err != nil {
			return err
		}
		if err := writeInuseHeapProfile(fmt.Sprintf("%s.%d.pb.gz", *heapProfile, q.Totals().InputRows)); err != nil {
			return err
		}
	}
	if *memProfile != "" {
		if err := writeHeapProfile(*memProfile); err != nil {
			return err
		}
	}
	t := q.Totals()
	e2eRate := float64(t.InputRows) / e2eDur.Seconds()
	ps := q.RecentProgress()
	var maxState int64
	var closeLat []float64
	for i, p := range ps {
		if len(p.StateOperators) > 0 && p.StateOperators[0].MemoryUsedBytes > maxState {
			maxState = p.StateOperators[0].MemoryUsedBytes
		}
		// A window closes when the watermark computed at the end of batch
		// i-1 passes its end; its row is visible when batch i commits.
		if i > 0 && p.Sink.NumOutputRows > 0 {
			prevEnd := endOf(ps[i-1])
			closeLat = append(closeLat, float64(endOf(p).Sub(prevEnd).Milliseconds()))
		}
	}
	sort.Float64s(closeLat)
	fmt.Printf("events                 %d (%d micro-batches of <= %d)\n", *n, t.Batches, *maxOff)
	fmt.Printf("produce                %.0f events/s (%s)\n", float64(*n)/prodDur.Seconds(), prodCPUs)
	fmt.Printf("raw consume            %.0f records/s (%d records in %s; %s)\n", rawRate, raw, rawDur.Round(time.Millisecond), rawCPUs)
	fmt.Printf("atlas kafka read       %.0f records/s (%d records in %s, the query's fetch and decoding into Arrow, no parsing; %s)\n", float64(read)/readDur.Seconds(), read, readDur.Round(time.Millisecond), readCPUs)
	fmt.Printf("end to end             %.0f events/s (%d rows, parse + watermark + window count + Iceberg commits, %s; %s)\n", e2eRate, t.InputRows, e2eDur.Round(time.Millisecond), e2eCPUs)
	fmt.Printf("ratio e2e/raw          %.2f\n", e2eRate/rawRate)
	fmt.Printf("time per phase         %s\n", phaseTotals(ps))
	if len(ps) > 0 {
		first, _ := time.Parse("2006-01-02T15:04:05.000Z", ps[0].Timestamp)
		fmt.Printf("start to first batch   %s (source and sink set-up, table creation)\n", first.Sub(t1).Round(time.Millisecond))
	}
	fmt.Printf("windows written        %d, late rows dropped %d\n", t.OutputRows, t.DroppedLate)
	fmt.Printf("query peak RSS         %s (high-water mark while the query ran, reset after produce and raw consume; %s when the query started)\n", mb(finalKB), mb(kilobytes(rssBefore)))
	printPeaks(watch, t.InputRows, finalKB)
	fmt.Printf("state memory (max)     %d bytes (over the last %d batches)\n", maxState, len(ps))
	if len(closeLat) > 0 {
		fmt.Printf("window close->visible  p50 %.0f ms, max %.0f ms (one trigger, as in Spark append mode)\n", closeLat[len(closeLat)/2], closeLat[len(closeLat)-1])
	}
	return nil
}

// deleteBenchTopic deletes the benchmark's topic, reporting a failure on
// stderr only: the numbers are already printed.
func deleteBenchTopic(brokers []string, topic string) {
	cl, err := stack.NewClient(brokers)
	if err == nil {
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var resp kadm.DeleteTopicResponse
		if resp, err = kadm.NewClient(cl).DeleteTopic(ctx, topic); err == nil {
			err = resp.Err
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: could not delete topic %s: %v\n", topic, err)
	}
}

func endOf(p engine.StreamingQueryProgress) time.Time {
	ts, _ := time.Parse("2006-01-02T15:04:05.000Z", p.Timestamp)
	return ts.Add(time.Duration(p.BatchDuration) * time.Millisecond)
}

// peakRSS reads the process's high-water resident set size.
func peakRSS() string { return procStatus("VmHWM:") }

// procStatus returns the value of one line of /proc/self/status ("VmHWM:",
// "VmRSS:"), or "unknown".
func procStatus(field string) string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field) {
			return strings.TrimSpace(strings.TrimPrefix(line, field))
		}
	}
	return "unknown"
}

// releaseAndResetPeakRSS collects the garbage, returns the freed memory to
// the OS and resets the kernel's peak RSS (VmHWM) to the current RSS
// (writing 5 to /proc/self/clear_refs, Linux 4.0+), so that a later
// peakRSS is the peak of what runs from now on. It returns the RSS after
// the release.
func releaseAndResetPeakRSS() string {
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		fmt.Fprintf(os.Stderr, "bench: cannot reset the peak RSS (%v): the query peak includes the producer's\n", err)
	}
	return procStatus("VmRSS:")
}

// phaseTotals sums each durationMs phase over the batches, longest first,
// as "addBatch 412 ms, walCommit 96 ms, ...": where the end-to-end time goes.
func phaseTotals(ps []engine.StreamingQueryProgress) string {
	sums := map[string]int64{}
	for _, p := range ps {
		for k, v := range p.DurationMs {
			if k != "triggerExecution" {
				sums[k] += v
			}
		}
	}
	keys := make([]string, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return sums[keys[i]] > sums[keys[j]] || sums[keys[i]] == sums[keys[j]] && keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d ms", k, sums[k])
	}
	return strings.Join(parts, ", ")
}

// startCPUProfile writes a CPU profile to path until the returned function
// is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// writeHeapProfile writes the allocation profile so far to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("memory profile: %w", err)
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		return fmt.Errorf("memory profile: %w", err)
	}
	return nil
}
