package produce

import (
	"fmt"
	"time"
)

// Change is one change of an Online-Retail order line as its JSON value is
// written to Kafka:
//
//	{"op":"u","invoice":"536365","stock_code":"85123A","quantity":6,"price":2.55,"CustomerID":17850.0,"Country":"United Kingdom","ts":"2010-12-01T08:26:00.000Z"}
//
// The key of a line is (Invoice, StockCode). Op is OpInsert, OpUpdate or
// OpDelete; a delete carries the line's last values. CustomerID is null
// (nil) for about a fifth of the invoices, as in the Online Retail data set.
// Quantity is negative for returns. TS is in TimeLayout and strictly
// increases along the stream.
type Change struct {
	Op         string   `json:"op"`
	Invoice    string   `json:"invoice"`
	StockCode  string   `json:"stock_code"`
	Quantity   int64    `json:"quantity"`
	Price      float64  `json:"price"`
	CustomerID *float64 `json:"CustomerID"`
	Country    string   `json:"Country"`
	TS         string   `json:"ts"`
}

// Values of Change.Op.
const (
	// OpInsert is the first change of a key, or its first change after a delete.
	OpInsert = "c"
	// OpUpdate replaces some of a live key's values.
	OpUpdate = "u"
	// OpDelete removes a live key.
	OpDelete = "d"
)

// CDCKey returns the Kafka record key of a change: invoice|stock_code.
func CDCKey(invoice, stockCode string) string { return invoice + "|" + stockCode }

// ChangeRecord is one generated Kafka record of the CDC stream.
type ChangeRecord struct {
	// Key is the Kafka record key, CDCKey(Change.Invoice, Change.StockCode).
	Key []byte
	// Value is the Kafka record value, exactly as sent.
	Value []byte
	// Change holds the fields Value encodes.
	Change Change
	// Time is the time encoded in Change.TS.
	Time time.Time
}

// DefaultCDCStart returns the time of the first change when CDCConfig.Start
// is zero: 2010-12-01T08:26:00Z, the first invoice of the Online Retail data.
func DefaultCDCStart() time.Time { return time.Date(2010, 12, 1, 8, 26, 0, 0, time.UTC) }

const (
	// DefaultCDCTopic is the topic ProduceCDC writes to.
	DefaultCDCTopic = "online_retail_cdc"
	// DefaultCDCInterval is the time between consecutive changes.
	DefaultCDCInterval = time.Second
)

// CDCConfig configures the CDC generator. Each change is drawn as an update
// with probability UpdateFraction, a delete with DeleteFraction, and an
// insert otherwise; then adjusted so the stream stays valid: an insert takes
// a key never seen if one is left, else re-inserts a deleted key, else turns
// into an update; an update or delete with no live key turns into an insert;
// and new keys are forced in when the changes left are just enough for them.
// So the stream holds exactly min(Count, Keys) distinct keys, and the
// fractions hold when Keys is near Count*(1-UpdateFraction-DeleteFraction),
// the default.
type CDCConfig struct {
	// Count is the number of changes.
	Count int64
	// Keys is the number of distinct (invoice, stock_code) keys; 0 means
	// max(1, Count*(1-UpdateFraction-DeleteFraction)).
	Keys int64
	// Seed selects the reproducible random stream.
	Seed int64
	// UpdateFraction is the share of changes drawn as updates.
	UpdateFraction float64
	// DeleteFraction is the share of changes drawn as deletes.
	DeleteFraction float64
	// Start is the time of the first change (DefaultCDCStart), truncated to
	// the millisecond.
	Start time.Time
	// Interval is the time between consecutive changes, at least 1 ms
	// (DefaultCDCInterval).
	Interval time.Duration
	// Topic is the topic ProduceCDC writes to (DefaultCDCTopic).
	Topic string
	// Rate caps ProduceCDC at this many records per second; 0 means as fast
	// as possible. Generation ignores it.
	Rate float64
}

// withDefaults returns c with zero fields replaced by defaults, or an error
// naming the first invalid field.
func (c CDCConfig) withDefaults() (CDCConfig, error) {
	switch {
	case c.Count < 0:
		return c, fmt.Errorf("cdc config: count %d is negative", c.Count)
	case c.Keys < 0:
		return c, fmt.Errorf("cdc config: keys %d is negative", c.Keys)
	case c.UpdateFraction < 0 || c.UpdateFraction > 1:
		return c, fmt.Errorf("cdc config: update fraction %g is outside [0, 1]", c.UpdateFraction)
	case c.DeleteFraction < 0 || c.DeleteFraction > 1:
		return c, fmt.Errorf("cdc config: delete fraction %g is outside [0, 1]", c.DeleteFraction)
	case c.UpdateFraction+c.DeleteFraction > 1:
		return c, fmt.Errorf("cdc config: update and delete fractions sum to %g, more than 1", c.UpdateFraction+c.DeleteFraction)
	case c.Interval < 0:
		return c, fmt.Errorf("cdc config: interval %s is negative", c.Interval)
	case c.Rate < 0:
		return c, fmt.Errorf("cdc config: rate %g is negative", c.Rate)
	}
	if c.Keys == 0 {
		c.Keys = max(1, int64(float64(c.Count)*(1-c.UpdateFraction-c.DeleteFraction)+0.5))
	}
	if c.Start.IsZero() {
		c.Start = DefaultCDCStart()
	}
	c.Start = c.Start.UTC().Truncate(time.Millisecond)
	if c.Interval == 0 {
		c.Interval = DefaultCDCInterval
	}
	c.Interval = max(time.Millisecond, c.Interval.Truncate(time.Millisecond))
	if c.Topic == "" {
		c.Topic = DefaultCDCTopic
	}
	return c, nil
}
