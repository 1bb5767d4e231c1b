package main

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/twmb/franz-go/pkg/kgo"
)

// runProduceMomo sends the course chapter's mobile-money transactions
// {"txn_id","district","amount","ts"}, for the mobile-money lab.
func runProduceMomo(ctx context.Context, args []string) error {
	var f produceFlags
	var cfg produce.MomoConfig
	fs := newFlagSet("produce", "momo [flags]")
	f.add(fs, produce.DefaultMomoTopic)
	fs.DurationVar(&cfg.Span, "span", produce.DefaultMomoSpan, "event time the transactions cover (the rate swings ±40% around count/span)")
	fs.Float64Var(&cfg.OutOfOrder, "out-of-order", 0.05, "fraction of transactions up to 30 s behind their place in the stream")
	fs.Float64Var(&cfg.Null, "null-district", 0.01, "fraction of transactions with a null district")
	fs.Float64Var(&cfg.Late, "late", 0.002, "fraction of transactions a phone uploads --late-by after they happened (none in the first fifth of the stream)")
	fs.DurationVar(&cfg.LateBy, "late-by", produce.DefaultMomoLateBy, "how late the late transactions are uploaded")
	start, err := f.parse(fs, args)
	if err != nil {
		return err
	}
	cfg.Count, cfg.Seed, cfg.Rate, cfg.Topic, cfg.Start = f.count, f.seed, f.rate, f.topic, start
	for _, p := range []*float64{&cfg.OutOfOrder, &cfg.Null, &cfg.Late} {
		if *p == 0 {
			*p = -1 // an explicit 0 is none; the config's zero is its default
		}
	}
	g, err := produce.NewMomoGenerator(cfg) // validates cfg before any connection
	if err != nil {
		return err
	}
	if f.print {
		return printValues(func() ([]byte, bool) { _, v, ok := g.Next(); return v, ok })
	}
	return produceTo(ctx, f, "momo", func(ctx context.Context, cl *kgo.Client, p func(done, total int64)) (fmt.Stringer, error) {
		return produce.ProduceMomo(ctx, cl, cfg, p)
	})
}
