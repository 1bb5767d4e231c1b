package produce

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Txn is one mobile-money transaction as the course chapter's producer
// writes it: {"txn_id","district","amount","ts"}, the amount a whole
// number of Rwandan francs (round(lognormvariate(8, 1))) and ts the event
// time in Unix seconds with milliseconds, as Python's time.time(). A nil
// District is a JSON null: the gateway could not place the phone.
type Txn struct {
	TxnID    int64   `json:"txn_id"`
	District *string `json:"district"`
	Amount   float64 `json:"amount"`
	TS       float64 `json:"ts"`
}

// MomoDistricts are the chapter's four districts, the ones the
// transactions come from, and momoDistrictWeights their shares.
var (
	MomoDistricts       = [...]string{"Gasabo", "Huye", "Musanze", "Rubavu"}
	momoDistrictWeights = [...]float64{35, 15, 20, 30}
)

// Defaults of MomoConfig.
const (
	DefaultMomoTopic  = "momo-txns"
	DefaultMomoSpan   = 15 * time.Minute
	DefaultMomoLateBy = 3 * time.Hour
	// momoSurge is how far the transaction rate swings around its mean
	// (±40%, two cycles over the span): some minutes are busy enough for
	// a district's volume to pass the chapter's 5,000,000 alert, others
	// are not.
	momoSurge  = 0.4
	momoCycles = 2
	// momoJitter is the most an out-of-order transaction is behind its
	// place in the stream.
	momoJitter = 30 * time.Second
	// momoLateFrom is how far into the stream the first late upload may
	// come, as a fraction of the records: never in the first micro-batches,
	// so a watermark is already there to judge it.
	momoLateFrom = 0.2
)

// DefaultMomoStart is the first transaction's time when MomoConfig.Start is zero.
func DefaultMomoStart() time.Time { return time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC) }

// MomoConfig configures the mobile-money generator; zero fields take the
// defaults.
type MomoConfig struct {
	Count int64
	Seed  int64
	Start time.Time
	// Span is the event time the stream covers. The rate swings ±40%
	// around Count/Span, twice over the span.
	Span time.Duration
	// OutOfOrder is the fraction of transactions up to 30 s behind their
	// place in the stream (default 0.05; negative for none).
	OutOfOrder float64
	// Null is the fraction of transactions with a null district (default
	// 0.01; negative for none).
	Null float64
	// Late is the fraction of transactions a phone buffered offline and
	// uploads LateBy after they happened (default 0.002; negative for
	// none); none comes in the first fifth of the stream.
	Late   float64
	LateBy time.Duration
	Topic  string
	Rate   float64
}

func (c MomoConfig) withDefaults() (MomoConfig, error) {
	if c.Start.IsZero() {
		c.Start = DefaultMomoStart()
	}
	c.Start = c.Start.UTC().Truncate(time.Millisecond)
	if c.Span == 0 {
		c.Span = DefaultMomoSpan
	}
	if c.LateBy == 0 {
		c.LateBy = DefaultMomoLateBy
	}
	for _, f := range []*float64{&c.OutOfOrder, &c.Null, &c.Late} {
		if *f < 0 {
			*f = 0
		}
	}
	if c.OutOfOrder == 0 {
		c.OutOfOrder = 0.05
	}
	if c.Null == 0 {
		c.Null = 0.01
	}
	if c.Late == 0 {
		c.Late = 0.002
	}
	if c.Topic == "" {
		c.Topic = DefaultMomoTopic
	}
	if c.Count < 0 || c.Span < 0 || c.Rate < 0 || c.LateBy < 0 || c.OutOfOrder > 1 || c.Null > 1 || c.Late > 1 {
		return c, fmt.Errorf("momo config: count, span, rate and late-by must not be negative, fractions in [0, 1]: %+v", c)
	}
	return c, nil
}

// MomoGenerator yields the transactions in arrival order, in constant memory.
type MomoGenerator struct {
	cfg       MomoConfig
	r         *rand.Rand
	districts weighted
	u         float64 // position in the span, 0..1
	next      int64
}

// NewMomoGenerator validates cfg and returns a generator before its first
// transaction.
func NewMomoGenerator(cfg MomoConfig) (*MomoGenerator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &MomoGenerator{cfg: cfg, r: newRand(cfg.Seed, 0x6d6f6d6f), districts: newWeighted(momoDistrictWeights[:])}, nil // "momo"
}

// Config returns the generator's config with defaults applied.
func (g *MomoGenerator) Config() MomoConfig { return g.cfg }

// MomoTxn is a generated transaction with what the generator knows of it.
type MomoTxn struct {
	Txn
	// Late marks a transaction uploaded LateBy after it happened.
	Late bool
}

// Next returns the next transaction and its JSON value, or false at the end.
func (g *MomoGenerator) Next() (MomoTxn, []byte, bool) {
	c := &g.cfg
	if g.next >= c.Count {
		return MomoTxn{}, nil, false
	}
	i := g.next
	g.next++
	// The arrival position moves faster where the rate is high.
	pos := c.Start.Add(time.Duration(g.u * float64(c.Span))).Truncate(time.Millisecond)
	g.u += 1 / (float64(c.Count) * (1 + momoSurge*math.Sin(2*math.Pi*momoCycles*g.u)))
	t := MomoTxn{Txn: Txn{TxnID: i, Amount: math.Round(math.Exp(8 + g.r.NormFloat64()))}}
	if g.r.Float64() >= c.Null {
		d := MomoDistricts[g.districts.pick(g.r)]
		t.District = &d
	}
	ts := pos
	switch u := g.r.Float64(); {
	case u < c.Late && float64(i) >= momoLateFrom*float64(c.Count):
		ts, t.Late = pos.Add(-c.LateBy), true
	case u < c.Late+c.OutOfOrder:
		ts = pos.Add(-uniformDuration(g.r, 0, momoJitter))
	}
	t.TS = float64(ts.UnixMilli()) / 1000
	v, err := json.Marshal(t.Txn)
	if err != nil {
		panic(fmt.Sprintf("momo: encode transaction %d: %v", i, err)) // plain fields: cannot fail
	}
	return t, v, true
}

// MomoSummary counts what ProduceMomo sent.
type MomoSummary struct {
	Topic   string
	Records int64
	Late    int64
	LateBy  time.Duration
	Elapsed time.Duration
}

// String is the line the CLI prints.
func (s MomoSummary) String() string {
	return fmt.Sprintf("produced %d mobile-money transactions (%d uploaded %s late) to %s in %s",
		s.Records, s.Late, s.LateBy, s.Topic, s.Elapsed.Round(time.Millisecond))
}

// ProduceMomo sends the transactions cfg describes to cfg.Topic, keyed by
// district.
func ProduceMomo(ctx context.Context, client *kgo.Client, cfg MomoConfig, progress func(done, total int64)) (MomoSummary, error) {
	g, err := NewMomoGenerator(cfg)
	if err != nil {
		return MomoSummary{}, err
	}
	cfg = g.Config()
	sum := MomoSummary{Topic: cfg.Topic, LateBy: cfg.LateBy}
	next := func() (key, value []byte, ok bool) {
		t, v, ok := g.Next()
		if !ok {
			return nil, nil, false
		}
		sum.Records++
		if t.Late {
			sum.Late++
		}
		var k []byte
		if t.District != nil {
			k = []byte(*t.District)
		}
		return k, v, true
	}
	sum.Elapsed, err = produceAll(ctx, client, cfg.Topic, cfg.Count, cfg.Rate, next, progress)
	if err != nil {
		return sum, fmt.Errorf("produce momo transactions to %q: %w", cfg.Topic, err)
	}
	return sum, nil
}
