package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

func init() {
	benches["cdc"] = benchCDC
}

// benchCDCSchema is the target and change schema of the CDC benchmark: an
// Online-Retail order line keyed by (invoice, stock_code).
var benchCDCSchema = arrow.NewSchema([]arrow.Field{
	{Name: "invoice", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "stock_code", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "quantity", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "country", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// linesPerInvoice is how many stock codes each invoice has.
const linesPerInvoice = 8

// benchCDC loads a target table and merges change batches into it with
// the MERGE of scenario 2 (update matched, insert new), reporting
// changes/s, files touched per batch and merge latency percentiles. The
// table is merge-on-read unless --mode copy-on-write; --compare runs the
// same batches in the other mode too and prints the ratio; --read reports
// the scan cost after the merges, before and after compaction, checked
// against a replay of the changes.
func benchCDC(ctx context.Context, args []string) error {
	fs := newFlagSet("bench", "cdc [--rows N] [--files N] [--batches N] [--batch-size N] [--update-fraction F] [--update-window N] [--mode merge-on-read|copy-on-write] [--compare] [--read] [--table NAME] [--home DIR]")
	o := cdcBenchOptions{}
	fs.Int64Var(&o.rows, "rows", 1_000_000, "rows in the target table before the merges")
	fs.IntVar(&o.files, "files", 10, "data files the target is loaded as (disjoint key ranges)")
	fs.IntVar(&o.batches, "batches", 20, "change batches to merge")
	fs.IntVar(&o.batchSize, "batch-size", 10_000, "changes per batch")
	fs.Float64Var(&o.updates, "update-fraction", 0.8, "share of a batch's changes that update existing keys (the rest insert new keys)")
	fs.Int64Var(&o.window, "update-window", 0, "updates pick keys among the newest N keys (0: all keys)")
	fs.StringVar(&o.mode, "mode", lakehouse.MergeOnRead, "write.merge.mode of the target: merge-on-read or copy-on-write")
	fs.StringVar(&o.granularity, "delete-granularity", lakehouse.DeleteGranularityPartition, "write.delete.granularity of the target (merge-on-read): file or partition")
	compare := fs.Bool("compare", false, "run the same batches in the other mode too and print the ratio")
	fs.BoolVar(&o.read, "read", false, "after the merges, time a full scan before and after compaction (and check it against a replay)")
	fs.StringVar(&o.name, "table", "lakehouse.bench.cdc_target", "target table (replaced)")
	home := fs.String("home", "", "Atlas home for the lakehouse (default: a temporary directory, removed after)")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed")
	fs.BoolVar(&o.verbose, "v", false, "print one line per batch")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the merges to this file (go tool pprof)")
	if err := fs.Parse(append([]string(nil), args...)); err != nil {
		return err
	}
	if err := checkBenchCDCFlags(o.rows, o.files, o.batches, o.batchSize, o.updates, o.window); err != nil {
		fmt.Fprintf(fs.Output(), "atlas bench cdc: %v\n\n", err)
		fs.Usage()
		return exitCode(2)
	}
	if o.mode != lakehouse.MergeOnRead && o.mode != lakehouse.CopyOnWrite {
		fmt.Fprintf(fs.Output(), "atlas bench cdc: --mode must be %s or %s, got %q\n\n", lakehouse.MergeOnRead, lakehouse.CopyOnWrite, o.mode)
		fs.Usage()
		return exitCode(2)
	}
	if *home == "" {
		dir, err := os.MkdirTemp("", "atlas-bench-cdc-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*home = dir
	}
	s := engineBuilder("atlas bench cdc", *home).GetOrCreate()
	defer s.Stop()
	if *cpuProfile != "" {
		o.profile = func() (func(), error) { return startCPUProfile(*cpuProfile) }
	}
	first, err := runBenchCDC(ctx, s, o)
	if err != nil {
		return err
	}
	if !*compare {
		return nil
	}
	other := o
	other.profile, other.read = nil, false
	other.mode = lakehouse.CopyOnWrite
	if o.mode == lakehouse.CopyOnWrite {
		other.mode = lakehouse.MergeOnRead
	}
	other.name = o.name + "_" + strings.ReplaceAll(other.mode, "-", "_")
	fmt.Println()
	second, err := runBenchCDC(ctx, s, other)
	if err != nil {
		return err
	}
	fmt.Printf("\n%s / %s: %.2fx the changes/s\n", o.mode, other.mode, first/second)
	return nil
}

// cdcBenchOptions are the flags of one benchmark run.
type cdcBenchOptions struct {
	rows           int64
	files, batches int
	batchSize      int
	updates        float64
	window         int64
	mode, name     string
	granularity    string
	read, verbose  bool
	seed           uint64
	profile        func() (func(), error)
}

// runBenchCDC loads the target and merges the batches in mode o.mode,
// returning the changes/s.
func runBenchCDC(ctx context.Context, s *engine.Session, o cdcBenchOptions) (float64, error) {
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return 0, err
	}
	_ = lh.DropTable(ctx, o.name, true)
	tbl, err := lh.CreateTable(ctx, o.name, benchCDCSchema, lakehouse.CreateOptions{Properties: map[string]string{
		lakehouse.PropMergeMode: o.mode, lakehouse.PropDeleteGranularity: o.granularity}})
	if err != nil {
		return 0, err
	}
	rng := rand.New(rand.NewPCG(o.seed, 2))
	t0 := time.Now()
	// ref replays the changes: key → quantity, the check of --read.
	var ref map[int64]int64
	if o.read {
		ref = make(map[int64]int64, o.rows)
	}
	per := (o.rows + int64(o.files) - 1) / int64(o.files)
	for lo := int64(0); lo < o.rows; lo += per {
		keys := make([]int64, 0, per)
		for k := lo; k < min(lo+per, o.rows); k++ {
			keys = append(keys, k)
		}
		rec := cdcRows(keys, rng, 0)
		noteQuantities(ref, keys, rec)
		_, err := tbl.AppendBatch(ctx, []arrow.RecordBatch{rec}, lakehouse.Commit{})
		rec.Release()
		if err != nil {
			return 0, fmt.Errorf("load target: %w", err)
		}
	}
	fmt.Printf("loaded %d rows into %s (%s) as %d files in %s\n", o.rows, o.name, o.mode, o.files, time.Since(t0).Round(time.Millisecond))

	if o.profile != nil {
		stop, err := o.profile()
		if err != nil {
			return 0, err
		}
		defer stop()
	}
	next := o.rows
	cpu0 := processCPU()
	var lat []time.Duration
	var total time.Duration
	var changes, rewritten, withDeletes, deleteFiles, scanned int64
	for b := 0; b < o.batches; b++ {
		nUp := int(float64(o.batchSize) * o.updates)
		lo := int64(0)
		if o.window > 0 && next > o.window {
			lo = next - o.window
		}
		seen := map[int64]bool{}
		keys := make([]int64, 0, o.batchSize)
		for len(keys) < nUp && int64(len(seen)) < next-lo {
			k := lo + rng.Int64N(next-lo)
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		for len(keys) < o.batchSize {
			keys = append(keys, next)
			next++
		}
		rec := cdcRows(keys, rng, b+1)
		noteQuantities(ref, keys, rec)
		src := s.CreateDataFrame(benchCDCSchema, []arrow.RecordBatch{rec})
		rec.Release()
		res, err := s.MergeInto(o.name).As("t").Using(src, "s").
			On("t.invoice = s.invoice AND t.stock_code = s.stock_code").
			WhenMatchedUpdateAll().
			WhenNotMatchedInsertAll().
			Execute(ctx)
		if err != nil {
			return 0, fmt.Errorf("batch %d: %w", b, err)
		}
		if res.NumAffectedRows != int64(len(keys)) {
			return 0, fmt.Errorf("batch %d: merged %d rows, want %d", b, res.NumAffectedRows, len(keys))
		}
		lat = append(lat, res.Duration)
		total += res.Duration
		changes += res.NumAffectedRows
		rewritten += int64(res.FilesRewritten)
		withDeletes += int64(res.FilesWithDeletes)
		deleteFiles += int64(res.DeleteFilesWritten)
		scanned += int64(res.FilesScanned)
		if o.verbose {
			fmt.Printf("batch %3d: %6d updated %6d inserted, %3d files scanned, %3d rewritten, %3d given deletes, %s\n",
				b, res.NumUpdatedRows, res.NumInsertedRows, res.FilesScanned, res.FilesRewritten, res.FilesWithDeletes, res.Duration.Round(time.Millisecond))
		}
	}
	cpu := processCPU() - cpu0
	n, err := s.Table(o.name).Count(ctx)
	if err != nil {
		return 0, err
	}
	if n != next {
		return 0, fmt.Errorf("the table holds %d rows after the merges, want %d", n, next)
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	rate := float64(changes) / total.Seconds()
	fb := float64(o.batches)
	fmt.Printf("merged %d batches of %d changes (%.0f%% updates) into %d rows (%s): %.0f changes/s\n",
		o.batches, o.batchSize, o.updates*100, o.rows, o.mode, rate)
	fmt.Printf("files per batch: %.1f scanned, %.1f rewritten, %.1f given deletes (%.1f delete files written)\n",
		float64(scanned)/fb, float64(rewritten)/fb, float64(withDeletes)/fb, float64(deleteFiles)/fb)
	fmt.Printf("merge latency: p50 %s, p99 %s, max %s\n", pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	if cpu > 0 {
		// CPU time is what a loaded machine does not distort: the rate an
		// idle core would reach, whatever else runs.
		fmt.Printf("process CPU: %s per batch, %.0f changes per CPU-second\n", (cpu / time.Duration(o.batches)).Round(time.Millisecond), float64(changes)/cpu.Seconds())
	}
	fmt.Printf("final rows: %d (checked)\n", n)
	if o.read {
		if err := benchCDCRead(ctx, s, tbl, o, ref); err != nil {
			return 0, err
		}
	}
	return rate, nil
}

// noteQuantities records the quantity of each key of rec in ref (nil: no
// replay kept).
func noteQuantities(ref map[int64]int64, keys []int64, rec arrow.RecordBatch) {
	if ref == nil {
		return
	}
	qty := rec.Column(2).(*array.Int64)
	for i, k := range keys {
		ref[k] = qty.Value(i)
	}
}

// benchCDCRead times full scans of the table after the merges, then
// compacts it (folding the deletes back) and times them again; every scan
// must hold exactly the replayed rows (count and sum of quantity).
func benchCDCRead(ctx context.Context, s *engine.Session, tbl *lakehouse.Table, o cdcBenchOptions, ref map[int64]int64) error {
	var want int64
	for _, q := range ref {
		want += q
	}
	scan := func(what string) error {
		if err := tbl.Refresh(ctx); err != nil {
			return err
		}
		files, err := tbl.PlanFiles(ctx, nil)
		if err != nil {
			return err
		}
		withDeletes, deletes := 0, 0
		for _, f := range files {
			if f.DeleteFiles() > 0 {
				withDeletes++
				deletes += f.DeleteFiles()
			}
		}
		var best time.Duration
		for range 3 {
			t0 := time.Now()
			rows, err := s.SQL("SELECT count(*) AS n, sum(quantity) AS q FROM " + o.name)
			if err != nil {
				return err
			}
			r, err := rows.Rows(ctx)
			if err != nil {
				return err
			}
			d := time.Since(t0)
			if best == 0 || d < best {
				best = d
			}
			if r[0]["n"] != int64(len(ref)) || r[0]["q"] != want {
				return fmt.Errorf("%s: the scan reads %v rows with quantity %v, the replay has %d rows with %d", what, r[0]["n"], r[0]["q"], len(ref), want)
			}
		}
		fmt.Printf("scan %s: %d data files (%d with deletes, %d delete-file references): best of 3 %s, %.1fM rows/s (checked against the replay)\n",
			what, len(files), withDeletes, deletes, best.Round(time.Millisecond), float64(len(ref))/best.Seconds()/1e6)
		return nil
	}
	if err := scan(fmt.Sprintf("after %d merges", o.batches)); err != nil {
		return err
	}
	t0 := time.Now()
	res, err := tbl.Compact(ctx, 0)
	if err != nil {
		return err
	}
	fmt.Printf("compaction: %d files into %d, %d rows read, %d live rows written, in %s\n", res.FilesRemoved, res.FilesAdded, res.Rows, res.RowsWritten, time.Since(t0).Round(time.Millisecond))
	return scan("after compaction")
}

// checkBenchCDCFlags refuses flag values the benchmark cannot run with,
// saying which flag and what it takes.
func checkBenchCDCFlags(rows int64, files, batches, batchSize int, updates float64, window int64) error {
	switch {
	case batches < 1:
		return fmt.Errorf("--batches must be at least 1, got %d", batches)
	case batchSize < 1:
		return fmt.Errorf("--batch-size must be at least 1, got %d", batchSize)
	case files < 1:
		return fmt.Errorf("--files must be at least 1, got %d", files)
	case rows < 0:
		return fmt.Errorf("--rows must not be negative, got %d", rows)
	case !(updates >= 0 && updates <= 1):
		return fmt.Errorf("--update-fraction must be between 0 and 1, got %g", updates)
	case window < 0:
		return fmt.Errorf("--update-window must not be negative (0: all keys), got %d", window)
	}
	return nil
}

// cdcRows builds the order lines of keys: key k is invoice k/8, stock code
// k%8; version varies the values so updates change them.
func cdcRows(keys []int64, rng *rand.Rand, version int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, benchCDCSchema)
	defer b.Release()
	inv := b.Field(0).(*array.StringBuilder)
	code := b.Field(1).(*array.StringBuilder)
	qty := b.Field(2).(*array.Int64Builder)
	price := b.Field(3).(*array.Float64Builder)
	country := b.Field(4).(*array.StringBuilder)
	countries := []string{"United Kingdom", "France", "Germany", "EIRE", "Spain", "Netherlands"}
	for _, k := range keys {
		inv.Append(fmt.Sprintf("%08d", k/linesPerInvoice))
		code.Append(fmt.Sprintf("%05d", 10000+k%linesPerInvoice))
		qty.Append(int64(1 + rng.IntN(24) + version))
		price.Append(float64(rng.IntN(2000)) / 100)
		country.Append(countries[rng.IntN(len(countries))])
	}
	return b.NewRecordBatch()
}

// processCPU returns the user and system CPU time of this process so far
// (0 where getrusage is not available).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
