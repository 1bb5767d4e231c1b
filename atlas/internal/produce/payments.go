package produce

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/twmb/avro"
	"github.com/twmb/franz-go/pkg/kgo"
)

// PaymentSchema is the PaymentEvent contract: the Avro schema every
// well-formed payments record is written with, in single-object encoding
// (C3 01, the schema's 8-byte CRC-64-AVRO fingerprint, the Avro binary).
// Readers pass it to from_avro with framing "single-object".
const PaymentSchema = `{"type":"record","name":"PaymentEvent","namespace":"fraudtwin.contracts","fields":[` +
	`{"name":"event_id","type":"string"},` +
	`{"name":"account_id","type":"string"},` +
	`{"name":"merchant_id","type":"string"},` +
	`{"name":"device_id","type":"string"},` +
	`{"name":"amount","type":"double"},` +
	`{"name":"currency","type":"string"},` +
	`{"name":"event_time","type":{"type":"long","logicalType":"timestamp-millis"}},` +
	`{"name":"ingestion_time","type":{"type":"long","logicalType":"timestamp-millis"}}]}`

// unknownPaymentSchema is another contract (an extra field): records
// written with it carry another fingerprint, which readers of
// PaymentSchema must count and ignore.
const unknownPaymentSchema = `{"type":"record","name":"PaymentEvent","namespace":"fraudtwin.contracts.v2","fields":[` +
	`{"name":"event_id","type":"string"},` +
	`{"name":"account_id","type":"string"},` +
	`{"name":"amount","type":"double"},` +
	`{"name":"channel","type":"string"}]}`

// PaymentEvent is one payment as the contract carries it.
type PaymentEvent struct {
	EventID    string  `avro:"event_id"`
	AccountID  string  `avro:"account_id"`
	MerchantID string  `avro:"merchant_id"`
	DeviceID   string  `avro:"device_id"`
	Amount     float64 `avro:"amount"`
	Currency   string  `avro:"currency"`
	// EventTime is when the payment happened (event time).
	EventTime time.Time `avro:"event_time"`
	// IngestionTime is when the platform observed it; more than ten
	// minutes after EventTime makes the record a late event.
	IngestionTime time.Time `avro:"ingestion_time"`
}

// PaymentIntent says what the generator meant a payments record to be
// (for summaries only: references apply the rules to the data).
type PaymentIntent uint8

const (
	// PaymentTimely is ingested within seconds of its event time.
	PaymentTimely PaymentIntent = iota
	// PaymentLate is ingested 11 to 40 minutes after its event time.
	PaymentLate
	// PaymentDuplicate re-sends a recent record byte for byte (same event_id).
	PaymentDuplicate
	// PaymentMalformed has the contract's header and a payload that is not
	// a PaymentEvent.
	PaymentMalformed
	// PaymentUnknownContract is written with another schema: another fingerprint.
	PaymentUnknownContract
)

// String names the intent.
func (i PaymentIntent) String() string {
	switch i {
	case PaymentTimely:
		return "timely"
	case PaymentLate:
		return "late"
	case PaymentDuplicate:
		return "duplicate"
	case PaymentMalformed:
		return "malformed"
	case PaymentUnknownContract:
		return "unknown_contract"
	}
	return fmt.Sprintf("PaymentIntent(%d)", uint8(i))
}

// PaymentRecord is one generated Kafka record of the payments stream.
type PaymentRecord struct {
	Key, Value []byte
	// Event is what Value encodes (for malformed and unknown-contract
	// records, what a well-formed record would have carried).
	Event  PaymentEvent
	Intent PaymentIntent
}

// Defaults of PaymentsConfig.
const (
	DefaultPaymentsTopic = "payments"
	DefaultPaymentsSpan  = time.Hour
	DefaultAccounts      = 200
	DefaultMerchants     = 60
	DefaultDevices       = 400
	paymentsRecent       = 64
)

// DefaultPaymentsStart is the first event time when PaymentsConfig.Start is zero.
func DefaultPaymentsStart() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }

// PaymentsConfig configures the payments generator; zero fields take the
// defaults above. Fractions are per-record probabilities summing to at most 1.
type PaymentsConfig struct {
	Count int64
	Seed  int64
	Start time.Time
	Span  time.Duration
	// Accounts, Merchants, Devices are the sizes of the id pools.
	Accounts, Merchants, Devices int
	// Late, Duplicates, Malformed, UnknownContract are fractions of records.
	Late, Duplicates, Malformed, UnknownContract float64
	Topic                                        string
	// Rate caps ProducePayments at this many records per second (0: no cap).
	Rate float64
}

func (c PaymentsConfig) withDefaults() (PaymentsConfig, error) {
	if c.Start.IsZero() {
		c.Start = DefaultPaymentsStart()
	}
	c.Start = c.Start.UTC().Truncate(time.Millisecond)
	if c.Span == 0 {
		c.Span = DefaultPaymentsSpan
	}
	if c.Accounts == 0 {
		c.Accounts = DefaultAccounts
	}
	if c.Merchants == 0 {
		c.Merchants = DefaultMerchants
	}
	if c.Devices == 0 {
		c.Devices = DefaultDevices
	}
	if c.Topic == "" {
		c.Topic = DefaultPaymentsTopic
	}
	if c.Count < 0 || c.Span < 0 || c.Accounts < 0 || c.Merchants < 0 || c.Devices < 0 || c.Rate < 0 {
		return c, fmt.Errorf("payments config: count, span, pool sizes and rate must not be negative: %+v", c)
	}
	sum := 0.0
	for _, f := range []float64{c.Late, c.Duplicates, c.Malformed, c.UnknownContract} {
		if f < 0 || f > 1 {
			return c, fmt.Errorf("payments config: fraction %g is outside [0, 1]", f)
		}
		sum += f
	}
	if sum > 1 {
		return c, fmt.Errorf("payments config: late+duplicates+malformed+unknown-contract fractions sum to %g, more than 1", sum)
	}
	return c, nil
}

// PaymentGenerator yields the payments stream one record at a time, in
// ingestion order, in constant memory. Not safe for concurrent use.
type PaymentGenerator struct {
	cfg              PaymentsConfig
	r                *rand.Rand
	contract, other  *avro.Schema
	next             int64
	recent           [paymentsRecent]PaymentRecord
	nRecent, recentI int
}

// NewPaymentGenerator validates cfg and returns a generator before its first record.
func NewPaymentGenerator(cfg PaymentsConfig) (*PaymentGenerator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	contract, err := avro.Parse(PaymentSchema)
	if err != nil {
		return nil, fmt.Errorf("payments contract: %w", err)
	}
	other, err := avro.Parse(unknownPaymentSchema)
	if err != nil {
		return nil, fmt.Errorf("payments: other contract: %w", err)
	}
	return &PaymentGenerator{cfg: cfg, r: newRand(cfg.Seed, 0x7061796d656e7473), contract: contract, other: other}, nil // "payments"
}

// Config returns the generator's config with defaults applied.
func (g *PaymentGenerator) Config() PaymentsConfig { return g.cfg }

// Next returns the next record, or false once Count records were returned.
func (g *PaymentGenerator) Next() (PaymentRecord, bool) {
	c := &g.cfg
	if g.next >= c.Count {
		return PaymentRecord{}, false
	}
	i := g.next
	g.next++
	// Ingestion times rise through the span; event times trail them.
	offsetMs := int64(float64(c.Span.Milliseconds()) * (float64(i) + g.r.Float64()) / float64(c.Count))
	ingested := c.Start.Add(time.Duration(offsetMs) * time.Millisecond)

	intent := PaymentTimely
	switch u := g.r.Float64(); {
	case u < c.Late:
		intent = PaymentLate
	case u < c.Late+c.Duplicates:
		intent = PaymentDuplicate
	case u < c.Late+c.Duplicates+c.Malformed:
		intent = PaymentMalformed
	case u < c.Late+c.Duplicates+c.Malformed+c.UnknownContract:
		intent = PaymentUnknownContract
	}
	if intent == PaymentDuplicate && g.nRecent > 0 {
		rec := g.recent[g.r.IntN(g.nRecent)]
		rec.Intent = PaymentDuplicate
		return rec, true
	}
	if intent == PaymentDuplicate {
		intent = PaymentTimely
	}
	delay := time.Duration(100+g.r.IntN(30_000)) * time.Millisecond
	if intent == PaymentLate {
		delay = 11*time.Minute + time.Duration(g.r.Int64N(int64(29*time.Minute/time.Millisecond)))*time.Millisecond
	}
	ev := PaymentEvent{
		EventID:       fmt.Sprintf("pay-%08d", i),
		AccountID:     fmt.Sprintf("acct-%04d", g.r.IntN(c.Accounts)),
		MerchantID:    fmt.Sprintf("m-%03d", g.r.IntN(c.Merchants)),
		DeviceID:      fmt.Sprintf("dev-%04d", g.r.IntN(c.Devices)),
		Amount:        float64(int64((5+g.r.ExpFloat64()*120)*100)) / 100,
		Currency:      "RWF",
		EventTime:     ingested.Add(-delay).Truncate(time.Millisecond),
		IngestionTime: ingested,
	}
	rec := PaymentRecord{Key: []byte(ev.AccountID), Event: ev, Intent: intent}
	var err error
	switch intent {
	case PaymentUnknownContract:
		rec.Value, err = g.other.AppendSingleObject(nil, map[string]any{
			"event_id": ev.EventID, "account_id": ev.AccountID, "amount": ev.Amount, "channel": "ussd"})
	case PaymentMalformed:
		// The contract's header, then a payload cut short inside event_id.
		rec.Value, err = g.contract.AppendSingleObject(nil, &ev)
		if err == nil {
			rec.Value = rec.Value[:10+3]
		}
	default:
		rec.Value, err = g.contract.AppendSingleObject(nil, &ev)
	}
	if err != nil {
		// The schemas and values are the generator's own: a failure is a bug.
		panic(fmt.Sprintf("payments: encode record %d: %v", i, err))
	}
	if intent == PaymentTimely || intent == PaymentLate {
		g.recent[g.recentI] = rec
		g.recentI = (g.recentI + 1) % paymentsRecent
		g.nRecent = min(g.nRecent+1, paymentsRecent)
	}
	return rec, true
}

// PaymentsSummary counts what ProducePayments sent, by intent.
type PaymentsSummary struct {
	Topic   string
	Records int64
	Bytes   int64
	Intents map[PaymentIntent]int64
	Elapsed time.Duration
}

// String is one line per summary item, as the CLI prints it.
func (s PaymentsSummary) String() string {
	return fmt.Sprintf("produced %d payment records (%d bytes) to %s in %s: %d timely, %d late, %d duplicates, %d malformed, %d unknown contract",
		s.Records, s.Bytes, s.Topic, s.Elapsed.Round(time.Millisecond), s.Intents[PaymentTimely], s.Intents[PaymentLate],
		s.Intents[PaymentDuplicate], s.Intents[PaymentMalformed], s.Intents[PaymentUnknownContract])
}

// ProducePayments generates the stream cfg describes and sends every
// record, in generation order, to cfg.Topic keyed by account id, then flushes.
func ProducePayments(ctx context.Context, client *kgo.Client, cfg PaymentsConfig, progress func(done, total int64)) (PaymentsSummary, error) {
	g, err := NewPaymentGenerator(cfg)
	if err != nil {
		return PaymentsSummary{}, err
	}
	cfg = g.Config()
	sum := PaymentsSummary{Topic: cfg.Topic, Intents: map[PaymentIntent]int64{}}
	next := func() (key, value []byte, ok bool) {
		rec, ok := g.Next()
		if ok {
			sum.Records++
			sum.Bytes += int64(len(rec.Value))
			sum.Intents[rec.Intent]++
		}
		return rec.Key, rec.Value, ok
	}
	sum.Elapsed, err = produceAll(ctx, client, cfg.Topic, cfg.Count, cfg.Rate, next, progress)
	if err != nil {
		return sum, fmt.Errorf("produce payments to %q: %w", cfg.Topic, err)
	}
	return sum, nil
}
