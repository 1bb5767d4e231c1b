package produce

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// Shape of the Online-Retail-like data.
const (
	firstInvoice       = 536365 // first invoice number of the Online Retail data set
	maxLinesPerInvoice = 16
	stockCodePoolSize  = 4000 // the data set has about 4,000 stock codes
	popularCodeShare   = 0.1  // share of lines drawn from popularStockCodes
	nullCustomerShare  = 0.2  // share of invoices without a CustomerID
	minCustomerID      = 12346
	customerIDCount    = 5942 // customer ids 12346..18287
	returnShare        = 0.03 // share of quantities that are negative (returns)
)

// popularStockCodes are real stock codes from the top of the data set; they
// open the pool and are drawn more often than the others.
var popularStockCodes = [...]string{
	"85123A", "71053", "84406B", "84029G", "84029E", "22752", "21730", "22633",
	"22632", "84879", "22745", "22748", "22749", "22310", "84969", "22623",
	"22622", "21754", "21755", "21777", "48187",
}

// countries and countryWeights approximate the Online Retail country mix,
// with United Kingdom dominant.
var (
	countries = [...]string{
		"United Kingdom", "Germany", "France", "EIRE", "Spain", "Netherlands",
		"Belgium", "Switzerland", "Portugal", "Australia", "Norway", "Italy",
		"Channel Islands", "Finland", "Cyprus", "Sweden", "Denmark", "Japan",
		"Poland", "USA",
	}
	countryWeights = [...]float64{
		890, 20, 20, 18, 6, 6, 5, 5, 4, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1,
	}
)

// quantities and quantityWeights are the common positive pack sizes.
var (
	quantities      = [...]int64{1, 2, 3, 4, 6, 8, 10, 12, 24, 36, 48}
	quantityWeights = [...]float64{20, 14, 8, 8, 12, 4, 6, 16, 6, 2, 4}
)

// retailCatalog holds the stock codes with their list prices and the
// choosers for the other columns. It is built from the generator's random
// stream, so it is part of what the seed reproduces.
type retailCatalog struct {
	stockCodes []string
	listPrice  []float64
	countries  weighted
	quantities weighted
}

// newRetailCatalog draws the stock-code pool and its list prices.
func newRetailCatalog(r *rand.Rand) *retailCatalog {
	c := &retailCatalog{
		countries:  newWeighted(countryWeights[:]),
		quantities: newWeighted(quantityWeights[:]),
	}
	seen := make(map[string]bool, stockCodePoolSize)
	for _, code := range popularStockCodes {
		seen[code] = true
		c.stockCodes = append(c.stockCodes, code)
	}
	for len(c.stockCodes) < stockCodePoolSize {
		code := strconv.Itoa(10000 + r.IntN(80000))
		if r.Float64() < 0.2 {
			code += string(rune('A' + r.IntN(7)))
		}
		if !seen[code] {
			seen[code] = true
			c.stockCodes = append(c.stockCodes, code)
		}
	}
	c.listPrice = make([]float64, len(c.stockCodes))
	for i := range c.listPrice {
		p := math.Exp(math.Log(2.1) + 0.9*r.NormFloat64())
		c.listPrice[i] = round2(min(max(p, 0.19), 49.95))
	}
	return c
}

// stockCode draws a stock-code index, favouring the popular codes.
func (c *retailCatalog) stockCode(r *rand.Rand) int {
	if r.Float64() < popularCodeShare {
		return r.IntN(len(popularStockCodes))
	}
	return r.IntN(len(c.stockCodes))
}

// quantity draws an order-line quantity: a pack size in 1..48, or a small
// negative number for a return.
func (c *retailCatalog) quantity(r *rand.Rand) int64 {
	if r.Float64() < returnShare {
		return -1 - r.Int64N(12)
	}
	return quantities[c.quantities.pick(r)]
}

// country draws a country name.
func (c *retailCatalog) country(r *rand.Rand) string {
	return countries[c.countries.pick(r)]
}

// customer draws a CustomerID, or ok=false for a missing one.
func customer(r *rand.Rand) (id float64, ok bool) {
	if r.Float64() < nullCustomerShare {
		return 0, false
	}
	return float64(minCustomerID + r.IntN(customerIDCount)), true
}

// round2 rounds a price to cents.
func round2(p float64) float64 { return math.Round(p*100) / 100 }
