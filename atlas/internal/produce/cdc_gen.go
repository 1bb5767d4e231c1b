package produce

import (
	"math/rand/v2"
	"strconv"
	"time"
)

// orderLine is the current state of one key.
type orderLine struct {
	invoice, stockCode string
	stockIndex         int
	quantity           int64
	price              float64
	customerID         float64
	hasCustomer        bool
	country            string
}

// invoiceState is the invoice new keys are being added to.
type invoiceState struct {
	number      int
	linesLeft   int
	stockCodes  []int // stock-code indexes already on the invoice
	customerID  float64
	hasCustomer bool
	country     string
}

// An update or delete picks one of the last recentKeys changed keys with
// probability recentKeyShare, so a micro-batch often holds several changes
// of one key; otherwise any live key.
const (
	recentKeys     = 32
	recentKeyShare = 0.3
)

// CDCGenerator yields the changes of a CDC stream one at a time, in the
// order ProduceCDC sends them. It keeps the state of every key it has
// introduced. It is not safe for concurrent use.
type CDCGenerator struct {
	cfg       CDCConfig
	r         *rand.Rand
	catalog   *retailCatalog
	next      int64 // index of the next change
	lines     []orderLine
	live      idSet // keys that exist now
	deleted   idSet // keys whose last change was a delete
	invoice   invoiceState
	recent    [recentKeys]int32
	nRecent   int // records (keys) held in recent
	recentPos int // where the next one goes
}

// NewCDCGenerator validates cfg, applies its defaults and returns a
// generator positioned before the first change.
func NewCDCGenerator(cfg CDCConfig) (*CDCGenerator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	r := newRand(cfg.Seed, 0x636463) // "cdc"
	return &CDCGenerator{
		cfg:     cfg,
		r:       r,
		catalog: newRetailCatalog(r),
		invoice: invoiceState{number: firstInvoice - 1},
	}, nil
}

// Config returns the generator's config with defaults applied.
func (g *CDCGenerator) Config() CDCConfig { return g.cfg }

// Next returns the next change, or false once Count changes were returned.
func (g *CDCGenerator) Next() (ChangeRecord, bool) {
	c := &g.cfg
	if g.next >= c.Count {
		return ChangeRecord{}, false
	}
	i := g.next
	g.next++
	ts := c.Start.Add(time.Duration(i) * c.Interval)

	newLeft := c.Keys - int64(len(g.lines))
	var op string
	var id int32
	switch u := g.r.Float64(); {
	case newLeft > 0 && newLeft >= c.Count-i:
		op, id = OpInsert, g.introduce()
	case u < c.DeleteFraction+c.UpdateFraction && g.live.len() > 0:
		op, id = OpUpdate, g.pickLive()
		if u < c.DeleteFraction {
			op = OpDelete
		}
	case newLeft > 0:
		op, id = OpInsert, g.introduce()
	case g.deleted.len() > 0:
		op, id = OpInsert, g.deleted.random(g.r)
	default:
		op, id = OpUpdate, g.pickLive()
	}

	line := &g.lines[id]
	switch op {
	case OpInsert:
		if g.deleted.has(id) { // a re-insert: fresh values for the line
			g.deleted.remove(id)
			line.quantity = g.catalog.quantity(g.r)
			line.price = g.catalog.listPrice[line.stockIndex]
		}
		g.live.add(id)
	case OpUpdate:
		g.update(line)
	case OpDelete:
		g.live.remove(id)
		g.deleted.add(id)
	}
	g.recent[g.recentPos] = id
	g.recentPos = (g.recentPos + 1) % recentKeys
	g.nRecent = min(g.nRecent+1, recentKeys)

	ch := Change{
		Op:        op,
		Invoice:   line.invoice,
		StockCode: line.stockCode,
		Quantity:  line.quantity,
		Price:     line.price,
		Country:   line.country,
		TS:        ts.Format(TimeLayout),
	}
	if line.hasCustomer {
		v := line.customerID
		ch.CustomerID = &v
	}
	return ChangeRecord{
		Key:    []byte(CDCKey(ch.Invoice, ch.StockCode)),
		Value:  appendChangeJSON(make([]byte, 0, 160), ch),
		Change: ch,
		Time:   ts,
	}, true
}

// introduce creates the next new key on the current invoice, opening a new
// invoice when the current one is full, and returns its id.
func (g *CDCGenerator) introduce() int32 {
	inv := &g.invoice
	if inv.linesLeft == 0 {
		inv.number++
		inv.linesLeft = 1 + g.r.IntN(maxLinesPerInvoice)
		inv.stockCodes = inv.stockCodes[:0]
		inv.customerID, inv.hasCustomer = customer(g.r)
		inv.country = g.catalog.country(g.r)
	}
	inv.linesLeft--
	stock := g.catalog.stockCode(g.r)
	for g.onInvoice(stock) {
		stock = g.catalog.stockCode(g.r)
	}
	inv.stockCodes = append(inv.stockCodes, stock)
	g.lines = append(g.lines, orderLine{
		invoice:     strconv.Itoa(inv.number),
		stockCode:   g.catalog.stockCodes[stock],
		stockIndex:  stock,
		quantity:    g.catalog.quantity(g.r),
		price:       g.catalog.listPrice[stock],
		customerID:  inv.customerID,
		hasCustomer: inv.hasCustomer,
		country:     inv.country,
	})
	return int32(len(g.lines) - 1)
}

// onInvoice reports whether the current invoice already has the stock code.
func (g *CDCGenerator) onInvoice(stock int) bool {
	for _, s := range g.invoice.stockCodes {
		if s == stock {
			return true
		}
	}
	return false
}

// pickLive returns a live key, favouring recently changed ones so that a
// micro-batch often holds several changes of one key. The live set must not
// be empty.
func (g *CDCGenerator) pickLive() int32 {
	if g.nRecent > 0 && g.r.Float64() < recentKeyShare {
		if id := g.recent[g.r.IntN(g.nRecent)]; g.live.has(id) {
			return id
		}
	}
	return g.live.random(g.r)
}

// update changes some of a line's values: the quantity most often, the
// price sometimes, rarely the country or the customer.
func (g *CDCGenerator) update(line *orderLine) {
	changed := false
	if g.r.Float64() < 0.3 {
		line.price = max(0.05, round2(line.price*(0.85+0.3*g.r.Float64())))
		changed = true
	}
	if g.r.Float64() < 0.05 {
		line.country = g.catalog.country(g.r)
		changed = true
	}
	if g.r.Float64() < 0.05 {
		line.customerID, line.hasCustomer = customer(g.r)
		changed = true
	}
	if !changed || g.r.Float64() < 0.7 {
		old := line.quantity
		for range 8 {
			if line.quantity = g.catalog.quantity(g.r); line.quantity != old {
				break
			}
		}
	}
}

// GenerateCDC returns every change of the stream cfg describes, in the
// order ProduceCDC sends them. The same cfg always yields byte-identical
// records.
func GenerateCDC(cfg CDCConfig) ([]ChangeRecord, error) {
	g, err := NewCDCGenerator(cfg)
	if err != nil {
		return nil, err
	}
	out := make([]ChangeRecord, 0, g.cfg.Count)
	for rec, ok := g.Next(); ok; rec, ok = g.Next() {
		out = append(out, rec)
	}
	return out, nil
}

// appendChangeJSON appends ch with its keys in the documented order;
// CustomerID is null when absent, doubles always carry a decimal point.
func appendChangeJSON(b []byte, ch Change) []byte {
	b = append(b, `{"op":`...)
	b = appendJSONString(b, ch.Op)
	b = append(b, `,"invoice":`...)
	b = appendJSONString(b, ch.Invoice)
	b = append(b, `,"stock_code":`...)
	b = appendJSONString(b, ch.StockCode)
	b = append(b, `,"quantity":`...)
	b = strconv.AppendInt(b, ch.Quantity, 10)
	b = append(b, `,"price":`...)
	b = appendJSONDouble(b, ch.Price)
	b = append(b, `,"CustomerID":`...)
	if ch.CustomerID == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONDouble(b, *ch.CustomerID)
	}
	b = append(b, `,"Country":`...)
	b = appendJSONString(b, ch.Country)
	b = append(b, `,"ts":`...)
	b = appendJSONString(b, ch.TS)
	return append(b, '}')
}
