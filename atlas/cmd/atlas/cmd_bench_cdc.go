package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/lakehouse"
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
// changes/s, files rewritten per batch and merge latency percentiles.
func benchCDC(ctx context.Context, args []string) error {
	fs := newFlagSet("bench", "cdc [--rows N] [--files N] [--batches N] [--batch-size N] [--update-fraction F] [--update-window N] [--table NAME] [--home DIR]")
	rows := fs.Int64("rows", 1_000_000, "rows in the target table before the merges")
	files := fs.Int("files", 10, "data files the target is loaded as (disjoint key ranges)")
	batches := fs.Int("batches", 20, "change batches to merge")
	batchSize := fs.Int("batch-size", 10_000, "changes per batch")
	updates := fs.Float64("update-fraction", 0.8, "share of a batch's changes that update existing keys (the rest insert new keys)")
	window := fs.Int64("update-window", 0, "updates pick keys among the newest N keys (0: all keys)")
	name := fs.String("table", "lakehouse.bench.cdc_target", "target table (replaced)")
	home := fs.String("home", "", "Atlas home for the lakehouse (default: a temporary directory, removed after)")
	seed := fs.Uint64("seed", 1, "random seed")
	verbose := fs.Bool("v", false, "print one line per batch")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the merges to this file (go tool pprof)")
	if err := fs.Parse(append([]string(nil), args...)); err != nil {
		return err
	}
	if err := checkBenchCDCFlags(*rows, *files, *batches, *batchSize, *updates, *window); err != nil {
		fmt.Fprintf(fs.Output(), "atlas bench cdc: %v\n\n", err)
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
	s := atlas.Builder().AppName("atlas bench cdc").Config(atlas.ConfHome, *home).GetOrCreate()
	defer s.Stop()
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return err
	}
	_ = lh.DropTable(ctx, *name, true)
	tbl, err := lh.CreateTable(ctx, *name, benchCDCSchema, lakehouse.CreateOptions{})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(*seed, 2))
	t0 := time.Now()
	per := (*rows + int64(*files) - 1) / int64(*files)
	for lo := int64(0); lo < *rows; lo += per {
		keys := make([]int64, 0, per)
		for k := lo; k < min(lo+per, *rows); k++ {
			keys = append(keys, k)
		}
		rec := cdcRows(keys, rng, 0)
		_, err := tbl.AppendBatch(ctx, []arrow.RecordBatch{rec}, lakehouse.Commit{})
		rec.Release()
		if err != nil {
			return fmt.Errorf("load target: %w", err)
		}
	}
	fmt.Printf("loaded %d rows into %s as %d files in %s\n", *rows, *name, *files, time.Since(t0).Round(time.Millisecond))

	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	next := *rows
	var lat []time.Duration
	var total time.Duration
	var changes, rewritten, scanned int64
	for b := 0; b < *batches; b++ {
		nUp := int(float64(*batchSize) * *updates)
		lo := int64(0)
		if *window > 0 && next > *window {
			lo = next - *window
		}
		seen := map[int64]bool{}
		keys := make([]int64, 0, *batchSize)
		for len(keys) < nUp && int64(len(seen)) < next-lo {
			k := lo + rng.Int64N(next-lo)
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		for len(keys) < *batchSize {
			keys = append(keys, next)
			next++
		}
		rec := cdcRows(keys, rng, b+1)
		src := s.CreateDataFrame(benchCDCSchema, []arrow.RecordBatch{rec})
		rec.Release()
		res, err := s.MergeInto(*name).As("t").Using(src, "s").
			On("t.invoice = s.invoice AND t.stock_code = s.stock_code").
			WhenMatchedUpdateAll().
			WhenNotMatchedInsertAll().
			Execute(ctx)
		if err != nil {
			return fmt.Errorf("batch %d: %w", b, err)
		}
		if res.NumAffectedRows != int64(len(keys)) {
			return fmt.Errorf("batch %d: merged %d rows, want %d", b, res.NumAffectedRows, len(keys))
		}
		lat = append(lat, res.Duration)
		total += res.Duration
		changes += res.NumAffectedRows
		rewritten += int64(res.FilesRewritten)
		scanned += int64(res.FilesScanned)
		if *verbose {
			fmt.Printf("batch %3d: %6d updated %6d inserted, %3d files scanned, %3d rewritten, %s\n",
				b, res.NumUpdatedRows, res.NumInsertedRows, res.FilesScanned, res.FilesRewritten, res.Duration.Round(time.Millisecond))
		}
	}
	n, err := s.Table(*name).Count(ctx)
	if err != nil {
		return err
	}
	if n != next {
		return fmt.Errorf("the table holds %d rows after the merges, want %d", n, next)
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	fmt.Printf("merged %d batches of %d changes (%.0f%% updates) into %d rows: %.0f changes/s\n",
		*batches, *batchSize, *updates*100, *rows, float64(changes)/total.Seconds())
	fmt.Printf("files per batch: %.1f scanned, %.1f rewritten\n", float64(scanned)/float64(*batches), float64(rewritten)/float64(*batches))
	fmt.Printf("merge latency: p50 %s, p99 %s, max %s\n", pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	fmt.Printf("final rows: %d (checked)\n", n)
	return nil
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
