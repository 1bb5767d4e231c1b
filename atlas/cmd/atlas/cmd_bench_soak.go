package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/soak"
)

func init() {
	benches["soak"] = benchSoak
}

// benchSoak runs a stream for N micro-batches in each variant (append,
// windows, CDC MERGE merge-on-read) with the server's automatic table
// maintenance, printing per tenth of the run: batch time p50/p99, table
// metadata bytes, data files, delete files, manifests, checkpoint bytes,
// RSS and SQL latency on the table; then the last tenth against the first.
func benchSoak(ctx context.Context, args []string) error {
	fs := newFlagSet("bench soak", "[--batches N] [--rows-per-batch N] [--variant append|windows|cdc|all] [--sql-every DURATION] [--cpuprofile FILE]")
	batches := fs.Int("batches", 2000, "micro-batches per variant (at least 10)")
	rows := fs.Int("rows-per-batch", 10, "rows per micro-batch")
	variant := fs.String("variant", "all", "append, windows, cdc or all")
	sqlEvery := fs.Duration("sql-every", 250*time.Millisecond, "period of the SELECT count(*) probe on the table (0: none)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	if *batches < 10 || *rows < 1 {
		return fmt.Errorf("bench soak: --batches %d must be at least 10 and --rows-per-batch %d at least 1", *batches, *rows)
	}
	variants := []string{soak.Append, soak.Windows, soak.CDC}
	if *variant != "all" {
		if !strings.Contains(" append windows cdc ", " "+*variant+" ") {
			return fmt.Errorf("bench soak: --variant %q: use append, windows, cdc or all", *variant)
		}
		variants = []string{*variant}
	}
	for _, v := range variants {
		if err := benchSoakVariant(ctx, v, *batches, *rows, *sqlEvery); err != nil {
			return err
		}
	}
	return nil
}

func benchSoakVariant(ctx context.Context, variant string, batches, rows int, sqlEvery time.Duration) error {
	home, err := os.MkdirTemp("", "atlas-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	s := engine.Builder().AppName("bench-soak").Config(engine.ConfHome, home).GetOrCreate()
	defer s.Stop()
	fmt.Printf("\n%s: %d micro-batches of %d rows\n", variant, batches, rows)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "decile\tbatches\tp50 ms\tp99 ms\tmetadata KB\tsnapshots\tdata files\tdelete files\tmanifests\tcheckpoint KB\tRSS MB\tSQL p50 ms\tSQL p99 ms\tmaint runs\t")
	rep, err := soak.Run(ctx, s, soak.Options{Variant: variant, Batches: batches, RowsPerBatch: rows, Dir: home, SQLEvery: sqlEvery,
		OnDecile: func(d soak.Decile) {
			fmt.Fprintf(tw, "%d\t%d-%d\t%.1f\t%.1f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.1f\t%d\t\n", d.Index, d.FirstBatch, d.LastBatch,
				ms(d.P50), ms(d.P99), d.MetadataBytes>>10, d.Health.Snapshots, d.Health.DataFiles, d.Health.DeleteFiles,
				d.Health.DataManifests+d.Health.DeleteManifests, d.CheckpointBytes>>10, d.RSS>>20, ms(d.SQLP50), ms(d.SQLP99), d.Maintenance.Runs)
			tw.Flush()
		}})
	tw.Flush()
	if err != nil {
		return fmt.Errorf("bench soak %s: %w", variant, err)
	}
	first, last := rep.Deciles[0], rep.Deciles[len(rep.Deciles)-1]
	fmt.Printf("%s: %s in %s; last/first decile: p50 %.2fx, metadata %.2fx, checkpoint %.2fx, RSS %.2fx; checked: %s\n",
		variant, rep.Table, rep.Elapsed.Round(time.Millisecond), ratio(ms(last.P50), ms(first.P50)),
		ratio(float64(last.MetadataBytes), float64(first.MetadataBytes)), ratio(float64(last.CheckpointBytes), float64(first.CheckpointBytes)),
		ratio(float64(last.RSS), float64(first.RSS)), rep.Checked)
	m := last.Maintenance
	fmt.Printf("%s: maintenance %d runs (%d failed): %d snapshots expired, %d manifests merged, %d data files compacted (%d with deletes folded), %d compaction attempts lost, %d bins folded concurrent deletes at commit\n",
		variant, m.Runs, m.Errors, m.SnapshotsExpired, m.ManifestsReplaced, m.FilesCompacted, m.FilesWithDeletesFolded, m.CompactConflicts, m.ConcurrentFolds)
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
