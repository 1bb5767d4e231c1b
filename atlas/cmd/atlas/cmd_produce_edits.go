package main

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/twmb/franz-go/pkg/kgo"
)

// runProduceEdits sends a seeded, offline sample of Wikimedia-like recent
// changes, for the edits lab.
func runProduceEdits(ctx context.Context, args []string) error {
	var f produceFlags
	var cfg produce.EditsConfig
	fs := newFlagSet("produce", "edits [flags]")
	f.add(fs, produce.DefaultEditsTopic)
	fs.DurationVar(&cfg.Span, "span", produce.DefaultEditsSpan, "time the edits cover, in order")
	fs.IntVar(&cfg.Editors, "editors", produce.DefaultEditors, "number of distinct human editors (Zipf-skewed)")
	fs.IntVar(&cfg.Titles, "titles", produce.DefaultTitles, "number of distinct page titles (Zipf-skewed)")
	fs.Float64Var(&cfg.BotShare, "bots", 0.3, "fraction of edits made by bots")
	start, err := f.parse(fs, args)
	if err != nil {
		return err
	}
	cfg.Count, cfg.Seed, cfg.Rate, cfg.Topic, cfg.Start = f.count, f.seed, f.rate, f.topic, start
	g, err := produce.NewEditGenerator(cfg) // validates cfg before any connection
	if err != nil {
		return err
	}
	if f.print {
		return printValues(func() ([]byte, bool) { _, v, ok := g.Next(); return v, ok })
	}
	return produceTo(ctx, f, "edits", func(ctx context.Context, cl *kgo.Client, p func(done, total int64)) (fmt.Stringer, error) {
		return produce.ProduceEdits(ctx, cl, cfg, p)
	})
}
