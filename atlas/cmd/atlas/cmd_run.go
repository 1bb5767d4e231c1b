package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/produce"
	"github.com/atlas-lakehouse/atlas/atlas/scenarios"
	"github.com/atlas-lakehouse/atlas/atlas/stack"
)

func init() {
	register(command{
		Name:    "run",
		Summary: "run a scenario on the stack: `run events` counts closed 5-minute windows into lakehouse.gold.event_windows and prints the first rows",
		Run:     runScenario,
	})
}

func runScenario(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "events" {
		return fmt.Errorf("usage: atlas run events [flags] (the CDC scenario runs as `atlas run cdc` once available)")
	}
	fs := newFlagSet("run", "events [--produce N] [--rows N] [--max-offsets-per-trigger N]")
	produceN := fs.Int64("produce", 200000, "events to produce first when the topic is empty (0: never produce)")
	rows := fs.Int("rows", 20, "rows of the table to print at the end")
	maxOff := fs.Int64("max-offsets-per-trigger", 50000, "bound on records per micro-batch")
	seed := fs.Int64("seed", 1, "seed of the produced events")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if _, err := stack.EnsureUp(ctx, stack.Options{}); err != nil {
		return err
	}
	if err := ensureEvents(ctx, *produceN, *seed); err != nil {
		return err
	}
	s := atlas.NewSession()
	defer s.Stop()
	q, err := scenarios.StartEventWindows(s, scenarios.EventsOptions{MaxOffsetsPerTrigger: *maxOff}, "", "", atlas.AvailableNow(), true)
	if err != nil {
		return err
	}
	if err := q.AwaitTermination(); err != nil && !errors.Is(err, atlas.ErrInterrupted) {
		return err
	}
	t := q.Totals()
	fmt.Printf("query %s: %d batches, %d rows in, %d windows written, %d late rows dropped, %d malformed records skipped (checkpoint %s)\n",
		q.Name(), t.Batches, t.InputRows, t.OutputRows, t.DroppedLate, t.Malformed, q.CheckpointLocation())
	fmt.Printf("\nSELECT * FROM %s ORDER BY window_start, event LIMIT %d\n", scenarios.EventWindowsTable, *rows)
	return s.Table(scenarios.EventWindowsTable).OrderBy("window_start", "event").Show(*rows)
}

// ensureEvents produces n events when the events topic is empty, so a
// re-run continues the same stream rather than appending late data.
func ensureEvents(ctx context.Context, n, seed int64) error {
	if n <= 0 {
		return nil
	}
	info, err := stack.Status(ctx, "")
	if err == nil {
		for _, t := range info.Topics {
			if t.Name == "events" && t.Records > 0 {
				fmt.Fprintf(os.Stderr, "topic events already holds %d records: not producing more\n", t.Records)
				return nil
			}
		}
	}
	cl, err := stack.NewClient(nil, produce.ProducerOpts()...)
	if err != nil {
		return err
	}
	defer cl.Close()
	start := time.Now()
	sum, err := produce.ProduceEvents(ctx, cl, produce.EventsConfig{Count: n, Seed: seed, OutOfOrder: 0.1, Late: 0.02, Duplicates: 0.01}, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "produced %d events in %s\n", sum.Records, time.Since(start).Round(time.Millisecond))
	return nil
}
