package main

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/twmb/franz-go/pkg/kgo"
)

// runProducePayments sends the seeded payments stream of the fraud
// velocity pipeline: Avro PaymentEvent records in single-object encoding,
// with late, duplicate, malformed and unknown-contract records.
func runProducePayments(ctx context.Context, args []string) error {
	var f produceFlags
	var cfg produce.PaymentsConfig
	fs := newFlagSet("produce", "payments [flags]")
	f.add(fs, produce.DefaultPaymentsTopic)
	fs.IntVar(&cfg.Accounts, "accounts", produce.DefaultAccounts, "number of distinct account ids")
	fs.IntVar(&cfg.Merchants, "merchants", produce.DefaultMerchants, "number of distinct merchant ids")
	fs.IntVar(&cfg.Devices, "devices", produce.DefaultDevices, "number of distinct device ids")
	fs.DurationVar(&cfg.Span, "span", produce.DefaultPaymentsSpan, "ingestion time covered by the whole stream")
	fs.Float64Var(&cfg.Late, "late", 0.03, "fraction of records ingested 11 to 40 minutes after their event time")
	fs.Float64Var(&cfg.Duplicates, "duplicates", 0.02, "fraction of records that re-send a recent record byte for byte (same event_id)")
	fs.Float64Var(&cfg.Malformed, "malformed", 0.005, "fraction of records with the contract's header and a broken payload")
	fs.Float64Var(&cfg.UnknownContract, "unknown-contract", 0.005, "fraction of records written with another schema (another fingerprint)")
	start, err := f.parse(fs, args)
	if err != nil {
		return err
	}
	cfg.Count, cfg.Seed, cfg.Rate, cfg.Topic, cfg.Start = f.count, f.seed, f.rate, f.topic, start
	g, err := produce.NewPaymentGenerator(cfg) // validates cfg before any connection
	if err != nil {
		return err
	}
	if f.print {
		return printValues(func() ([]byte, bool) { r, ok := g.Next(); return []byte(fmt.Sprintf("%x", r.Value)), ok })
	}
	return produceTo(ctx, f, "payments", func(ctx context.Context, cl *kgo.Client, p func(done, total int64)) (fmt.Stringer, error) {
		return produce.ProducePayments(ctx, cl, cfg, p)
	})
}
