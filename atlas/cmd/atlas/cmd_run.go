package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/atlas-lakehouse/atlas/atlas/internal/scenarios"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

func init() {
	register(command{
		Name:    "run",
		Summary: "run a scenario and print its table: `run events` (closed windows into " + scenarios.EventWindowsTable + ") or `run cdc` (MERGE into " + scenarios.SilverTable + "); same queries and checkpoints as the notebooks",
		Run:     runScenario,
	})
}

func runScenario(ctx context.Context, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "events":
			return runEvents(ctx, args[1:])
		case "cdc":
			return runCDC(ctx, args[1:])
		}
	}
	return fmt.Errorf("usage: atlas run events|cdc [flags] (atlas help run)")
}

func runEvents(ctx context.Context, args []string) error {
	fs := newFlagSet("run", "events [--produce N] [--rows N] [--max-offsets-per-trigger N] [--seed N] [--checkpoint-root DIR|s3://...]")
	data := scenarios.EventsData
	produceN := fs.Int64("produce", data.Count, "events to produce first when the topic is empty (0: never produce)")
	rows := fs.Int("rows", 20, "rows of the table to print at the end")
	maxOff := fs.Int64("max-offsets-per-trigger", 50000, "bound on records per micro-batch")
	seed := fs.Int64("seed", data.Seed, "seed of the produced events")
	root := addCheckpointRoot(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	data.Count, data.Seed = *produceN, *seed
	err := ensureData(ctx, data.Topic, *produceN, func(cl *kgo.Client) (int64, error) {
		sum, err := produce.ProduceEvents(ctx, cl, data, nil)
		return sum.Records, err
	})
	if err != nil {
		return err
	}
	s := engineBuilder("atlas run", "").Config(engine.ConfCheckpointRoot, *root).GetOrCreate()
	defer s.Stop()
	opts := scenarios.EventsOptions{MaxOffsetsPerTrigger: *maxOff, LateRowsTable: scenarios.EventWindowsLateTable}
	q, err := scenarios.StartEventWindows(s, opts, "", "", engine.AvailableNow(), true)
	if err != nil {
		return err
	}
	if err := awaitQuery(q); err != nil {
		return err
	}
	fmt.Printf("\nSELECT * FROM %s ORDER BY window_start, event LIMIT %d\n", scenarios.EventWindowsTable, *rows)
	if err := s.Table(scenarios.EventWindowsTable).OrderBy("window_start", "event").Show(*rows); err != nil {
		return err
	}
	const late = "SELECT event, count(*) AS late_rows, min(ts) AS oldest, max(_watermark) AS watermark FROM " + scenarios.EventWindowsLateTable + " GROUP BY event ORDER BY event"
	fmt.Printf("\nlate events are kept, not silently dropped:\n%s\n", late)
	df, err := s.SQL(late)
	if err != nil {
		return err
	}
	return df.ShowFull(20)
}

func runCDC(ctx context.Context, args []string) error {
	fs := newFlagSet("run", "cdc [--produce N] [--rows N] [--max-offsets-per-trigger N] [--seed N] [--checkpoint-root DIR|s3://...]")
	data := scenarios.CDCData
	produceN := fs.Int64("produce", data.Count, "changes to produce first when the topic is empty (0: never produce)")
	rows := fs.Int("rows", 20, "rows of the table to print at the end")
	maxOff := fs.Int64("max-offsets-per-trigger", 10000, "bound on changes per micro-batch (one MERGE each)")
	seed := fs.Int64("seed", data.Seed, "seed of the produced changes")
	root := addCheckpointRoot(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	data.Count, data.Seed = *produceN, *seed
	err := ensureData(ctx, data.Topic, *produceN, func(cl *kgo.Client) (int64, error) {
		sum, err := produce.ProduceCDC(ctx, cl, data, nil)
		return sum.Records, err
	})
	if err != nil {
		return err
	}
	s := engineBuilder("atlas run", "").Config(engine.ConfCheckpointRoot, *root).GetOrCreate()
	defer s.Stop()
	var totals scenarios.MergeTotals
	q, err := scenarios.StartOnlineRetailCDC(s, scenarios.CDCOptions{
		MaxOffsetsPerTrigger: *maxOff, Trigger: engine.AvailableNow(), Progress: true,
	}, &totals)
	if err != nil {
		return err
	}
	if err := awaitQuery(q); err != nil {
		return err
	}
	if totals.Snapshot().Batches > 0 {
		fmt.Printf("merged into %s: %s\n", scenarios.SilverTable, totals.String())
	}
	fmt.Printf("\nSELECT * FROM %s ORDER BY invoice, stock_code LIMIT %d\n", scenarios.SilverTable, *rows)
	if err := s.Table(scenarios.SilverTable).OrderBy("invoice", "stock_code").Show(*rows); err != nil {
		return err
	}
	const byCountry = "SELECT Country, count(*) AS lines, sum(quantity) AS units FROM " + scenarios.SilverTable + " GROUP BY Country ORDER BY lines DESC LIMIT 5"
	fmt.Printf("\n%s\n", byCountry)
	df, err := s.SQL(byCountry)
	if err != nil {
		return err
	}
	return df.Show()
}

// awaitQuery waits for an AvailableNow query and prints its totals; an
// interrupt (Ctrl-C) stops it cleanly and is not an error.
func awaitQuery(q *engine.StreamingQuery) error {
	if err := q.AwaitTermination(); err != nil && !errors.Is(err, engine.ErrInterrupted) {
		return err
	}
	t := q.Totals()
	if t.Batches == 0 {
		fmt.Printf("query %s: nothing new to read; this query (from a notebook or an earlier run) already processed every record in the topic, so the table is unchanged (checkpoint %s)\n",
			q.Name(), q.CheckpointLocation())
		return nil
	}
	fmt.Printf("query %s: %d batches, %d rows in, %d rows written, %d late rows behind the watermark, %d malformed records skipped (checkpoint %s)\n",
		q.Name(), t.Batches, t.InputRows, t.OutputRows, t.DroppedLate, t.Malformed, q.CheckpointLocation())
	if t.NullEventTime > 0 || t.FutureEventTime > 0 || t.WatermarkWarnings > 0 {
		fmt.Printf("query %s: %d rows without an event time, %d rows with an event time far ahead of processing time, %d batches moved the watermark past processing time (see the WARNING lines)\n",
			q.Name(), t.NullEventTime, t.FutureEventTime, t.WatermarkWarnings)
	}
	return nil
}

// ensureData starts the stack when it is down and, when topic is empty and
// n > 0, produces into it with produceFn, so a re-run continues the same
// stream rather than appending new data to it. Producing happens once
// across processes (stack.ProduceOnce): two runs started together do not
// both fill the topic.
func ensureData(ctx context.Context, topic string, n int64, produceFn func(cl *kgo.Client) (int64, error)) error {
	info, err := stack.EnsureUp(ctx, stack.Options{OwnDaemon: true})
	if err != nil {
		return err
	}
	if n <= 0 {
		return nil
	}
	start := time.Now()
	res, err := stack.ProduceOnce(ctx, info.Home, nil, topic, func(context.Context) (int64, error) {
		cl, err := stack.NewClient(nil, produce.ProducerOpts()...)
		if err != nil {
			return 0, err
		}
		defer cl.Close()
		return produceFn(cl)
	})
	if err != nil {
		return fmt.Errorf("produce into %s: %w", topic, err)
	}
	if res.Held > 0 {
		fmt.Fprintf(os.Stderr, "topic %s already holds %d records: not producing more\n", topic, res.Held)
		return nil
	}
	fmt.Fprintf(os.Stderr, "produced %d records into %s in %s\n", res.Produced, topic, time.Since(start).Round(time.Millisecond))
	return nil
}

// addCheckpointRoot adds --checkpoint-root, where the scenario's query
// keeps its checkpoint.
func addCheckpointRoot(fs *flag.FlagSet) *string {
	return fs.String("checkpoint-root", "", "where the query keeps its checkpoint: a directory or s3://bucket/prefix, reached with the catalog's S3 settings (ATLAS_CATALOG_PROPS); default $"+engine.EnvCheckpointRoot+", else $ATLAS_HOME/checkpoints")
}
