package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/produce"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
	"github.com/twmb/franz-go/pkg/kgo"
)

func init() {
	register(command{
		Name:    "produce",
		Summary: "send a seeded, reproducible test stream to Kafka: atlas produce events|cdc|payments|edits|momo [flags]",
		Run:     runProduce,
	})
}

// brokerPingTimeout bounds the check that a broker answers before producing.
const brokerPingTimeout = 5 * time.Second

// runProduce dispatches to the events or cdc stream.
func runProduce(ctx context.Context, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "events":
			return runProduceEvents(ctx, args[1:])
		case "cdc":
			return runProduceCDC(ctx, args[1:])
		case "payments":
			return runProducePayments(ctx, args[1:])
		case "edits":
			return runProduceEdits(ctx, args[1:])
		case "momo":
			return runProduceMomo(ctx, args[1:])
		case "-h", "-help", "--help", "help":
			produceUsage(os.Stdout)
			return flag.ErrHelp
		}
		fmt.Fprintf(os.Stderr, "atlas produce: unknown stream %q\n\n", args[0])
	}
	produceUsage(os.Stderr)
	return exitCode(2)
}

// produceUsage lists the streams.
func produceUsage(w io.Writer) {
	fmt.Fprint(w, `usage: atlas produce events|cdc|payments|edits|momo [flags]

streams:
  events   user events {"user_id","event","ts"} with out-of-order, late, duplicate
           and malformed records, for windowed aggregations (topic events)
  cdc      Online-Retail-like change data capture {"op","invoice","stock_code",
           "quantity","price","CustomerID","Country","ts"}, for MERGE INTO
           (topic online_retail_cdc)
  payments Avro PaymentEvent records (single-object encoding, contract
           fingerprint) with late, duplicate, malformed and unknown-contract
           records, for the fraud velocity pipeline (topic payments)
  edits    an offline sample of Wikimedia recent changes {"wiki","type","bot",
           "timestamp","title","user"}, for the edits lab (topic wiki_edits)
  momo     the course chapter's mobile-money transactions {"txn_id","district",
           "amount","ts"}, some out of order and a few uploaded hours late, for
           the mobile-money and late-data labs (topic momo-txns)

The same flags always produce byte-identical records. Run atlas produce
events -h or atlas produce cdc -h for the flags.
`)
}

// produceFlags are the flags both streams share.
type produceFlags struct {
	brokers string
	topic   string
	count   int64
	seed    int64
	rate    float64
	start   string
	print   bool
	ifEmpty bool
}

// add adds the shared flags to fs; topic is the stream's default topic.
func (f *produceFlags) add(fs *flag.FlagSet, topic string) {
	fs.StringVar(&f.brokers, "brokers", strings.Join(stack.Brokers(), ","),
		"seed brokers, comma-separated host:port ($"+stack.EnvKafkaBrokers+", else the running atlas broker)")
	fs.StringVar(&f.topic, "topic", topic, "topic to produce to")
	fs.Int64Var(&f.count, "count", 100_000, "number of records")
	fs.Int64Var(&f.seed, "seed", 1, "random seed: the same seed gives the same records")
	fs.Float64Var(&f.rate, "rate", 0, "records per second; 0 is as fast as possible")
	fs.StringVar(&f.start, "start", "", "time of the first record, RFC 3339 (default: the stream's fixed start)")
	fs.BoolVar(&f.print, "print", false, "write the record values to standard output, one a line, instead of producing")
	fs.BoolVar(&f.ifEmpty, "if-empty", false, "produce only when the topic holds no records, under the lock `atlas run` takes too, so a re-run (or a notebook's Setup cell run again) continues the same stream instead of adding to it")
}

// parse parses a produce subcommand's args, then --start; the zero time
// selects the stream's default start.
func (f *produceFlags) parse(fs *flag.FlagSet, args []string) (time.Time, error) {
	if err := fs.Parse(args); err != nil {
		return time.Time{}, err
	}
	if f.start == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, f.start)
	if err != nil {
		return t, fmt.Errorf("--start %q is not an RFC 3339 time: %w", f.start, err)
	}
	return t, nil
}

// brokerList splits --brokers.
func (f *produceFlags) brokerList() []string {
	var bs []string
	for _, b := range strings.Split(f.brokers, ",") {
		if b = strings.TrimSpace(b); b != "" {
			bs = append(bs, b)
		}
	}
	return bs
}

func runProduceEvents(ctx context.Context, args []string) error {
	var f produceFlags
	var cfg produce.EventsConfig
	fs := newFlagSet("produce", "events [flags]")
	f.add(fs, produce.DefaultEventsTopic)
	fs.DurationVar(&cfg.Span, "span", produce.DefaultEventsSpan, "event time covered by the whole stream")
	fs.IntVar(&cfg.Users, "users", produce.DefaultUsers, "number of distinct user ids")
	fs.Float64Var(&cfg.OutOfOrder, "out-of-order", 0.1, "fraction of records up to 3 minutes behind the max event time")
	fs.Float64Var(&cfg.Late, "late", 0.02, "fraction of records 15 to 40 minutes behind the max event time (beyond a 10-minute watermark)")
	fs.Float64Var(&cfg.Duplicates, "duplicates", 0.01, "fraction of records that re-send a recent record byte for byte")
	fs.Float64Var(&cfg.Malformed, "malformed", 0, "fraction of records whose value is not a valid event")
	start, err := f.parse(fs, args)
	if err != nil {
		return err
	}
	cfg.Count, cfg.Seed, cfg.Rate, cfg.Topic, cfg.Start = f.count, f.seed, f.rate, f.topic, start

	g, err := produce.NewEventGenerator(cfg) // validates cfg before any connection
	if err != nil {
		return err
	}
	if f.print {
		return printValues(func() ([]byte, bool) { r, ok := g.Next(); return r.Value, ok })
	}
	return produceTo(ctx, f, "events", func(ctx context.Context, cl *kgo.Client, p func(done, total int64)) (fmt.Stringer, error) {
		return produce.ProduceEvents(ctx, cl, cfg, p)
	})
}

func runProduceCDC(ctx context.Context, args []string) error {
	var f produceFlags
	var cfg produce.CDCConfig
	fs := newFlagSet("produce", "cdc [flags]")
	f.add(fs, produce.DefaultCDCTopic)
	fs.Int64Var(&cfg.Keys, "keys", 0, "distinct (invoice, stock_code) keys; 0 is count*(1-updates-deletes)")
	fs.Float64Var(&cfg.UpdateFraction, "updates", 0.6, "fraction of changes that update a live key")
	fs.Float64Var(&cfg.DeleteFraction, "deletes", 0, "fraction of changes that delete a live key")
	fs.DurationVar(&cfg.Interval, "interval", produce.DefaultCDCInterval, "time between consecutive changes' ts")
	start, err := f.parse(fs, args)
	if err != nil {
		return err
	}
	cfg.Count, cfg.Seed, cfg.Rate, cfg.Topic, cfg.Start = f.count, f.seed, f.rate, f.topic, start

	g, err := produce.NewCDCGenerator(cfg) // validates cfg before any connection
	if err != nil {
		return err
	}
	if f.print {
		return printValues(func() ([]byte, bool) { r, ok := g.Next(); return r.Value, ok })
	}
	return produceTo(ctx, f, "cdc", func(ctx context.Context, cl *kgo.Client, p func(done, total int64)) (fmt.Stringer, error) {
		return produce.ProduceCDC(ctx, cl, cfg, p)
	})
}

// produceTo checks that a broker answers, runs one produce through a
// client tuned by produce.ProducerOpts with a progress display on standard
// error, and prints its summary on standard output.
func produceTo(ctx context.Context, f produceFlags, label string,
	run func(ctx context.Context, cl *kgo.Client, progress func(done, total int64)) (fmt.Stringer, error)) error {
	brokers := f.brokerList()
	pingCtx, cancel := context.WithTimeout(ctx, brokerPingTimeout)
	err := stack.Ping(pingCtx, brokers)
	cancel()
	if err != nil {
		return fmt.Errorf("no Kafka broker answers at %s (start one with `atlas up`): %w", strings.Join(brokers, ","), err)
	}
	once := func(ctx context.Context) (int64, error) {
		cl, err := stack.NewClient(brokers, produce.ProducerOpts()...)
		if err != nil {
			return 0, err
		}
		defer cl.Close()
		// A bar on a terminal's stderr; otherwise (a notebook cell, a log)
		// plain lines on stdout, next to the summary, only for long runs: a
		// notebook shows stderr in red, as if something had failed.
		progressOut, tty := io.Writer(os.Stdout), stderrIsTerminal()
		if tty {
			progressOut = os.Stderr
		}
		pp := produce.NewProgressPrinter(progressOut, label, tty)
		sum, err := run(ctx, cl, pp.Update)
		pp.Finish()
		fmt.Fprint(os.Stdout, sum)
		return 0, err
	}
	if !f.ifEmpty {
		_, err := once(ctx)
		return err
	}
	res, err := stack.ProduceOnce(ctx, "", brokers, f.topic, once)
	if err != nil {
		return fmt.Errorf("produce into %s: %w", f.topic, err)
	}
	if res.Held > 0 {
		fmt.Fprintf(os.Stdout, "topic %s already holds %d records: not producing more (--if-empty)\n", f.topic, res.Held)
	}
	return nil
}

// printValues writes each value next yields as one line of standard output.
func printValues(next func() ([]byte, bool)) error {
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	for v, ok := next(); ok; v, ok = next() {
		w.Write(v)
		if err := w.WriteByte('\n'); err != nil {
			return fmt.Errorf("write records to standard output: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write records to standard output: %w", err)
	}
	return nil
}

// stderrIsTerminal reports whether standard error is a terminal, where a
// redrawn progress bar makes sense.
func stderrIsTerminal() bool {
	fi, err := os.Stderr.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
