package produce

import (
	"bytes"
	"testing"
	"time"

	"github.com/twmb/avro"
)

func paymentsCfg() PaymentsConfig {
	return PaymentsConfig{Count: 5000, Seed: 11, Late: 0.05, Duplicates: 0.03, Malformed: 0.01, UnknownContract: 0.01}
}

func TestPaymentsAreReproducible(t *testing.T) {
	a, _ := NewPaymentGenerator(paymentsCfg())
	b, _ := NewPaymentGenerator(paymentsCfg())
	for i := 0; ; i++ {
		ra, okA := a.Next()
		rb, okB := b.Next()
		if okA != okB {
			t.Fatalf("record %d: one stream ended first", i)
		}
		if !okA {
			if i != 5000 {
				t.Fatalf("%d records, want 5000", i)
			}
			return
		}
		if !bytes.Equal(ra.Value, rb.Value) || !bytes.Equal(ra.Key, rb.Key) {
			t.Fatalf("record %d differs between two generators with one seed", i)
		}
	}
}

// TestPaymentsDecodeWithTheContract decodes every value independently with
// the contract schema (twmb/avro's single-object decoder, which checks the
// fingerprint): timely and late records decode to their event, the
// unknown-contract ones fail on the fingerprint, the malformed ones on the
// payload; lateness is the ingestion delay the intent says.
func TestPaymentsDecodeWithTheContract(t *testing.T) {
	contract := avro.MustParse(PaymentSchema)
	g, err := NewPaymentGenerator(paymentsCfg())
	if err != nil {
		t.Fatal(err)
	}
	counts := map[PaymentIntent]int{}
	seen := map[string]bool{}
	for {
		rec, ok := g.Next()
		if !ok {
			break
		}
		counts[rec.Intent]++
		var ev PaymentEvent
		_, err := contract.DecodeSingleObject(rec.Value, &ev)
		switch rec.Intent {
		case PaymentMalformed, PaymentUnknownContract:
			if err == nil {
				t.Fatalf("%s record %s decoded with the contract", rec.Intent, rec.Event.EventID)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s record: %v", rec.Intent, err)
		}
		if ev.EventID != rec.Event.EventID || !ev.EventTime.Equal(rec.Event.EventTime) || ev.Amount != rec.Event.Amount {
			t.Fatalf("decoded %+v, generated %+v", ev, rec.Event)
		}
		late := ev.IngestionTime.Sub(ev.EventTime) > 10*time.Minute
		if late != (rec.Intent == PaymentLate || (rec.Intent == PaymentDuplicate && late)) {
			t.Fatalf("record %s: ingestion delay %s for intent %s", ev.EventID, ev.IngestionTime.Sub(ev.EventTime), rec.Intent)
		}
		if rec.Intent == PaymentDuplicate && !seen[ev.EventID] {
			t.Fatalf("duplicate %s of a record never sent", ev.EventID)
		}
		if rec.Intent != PaymentDuplicate && seen[ev.EventID] {
			t.Fatalf("event id %s reused by a non-duplicate", ev.EventID)
		}
		seen[ev.EventID] = true
	}
	for _, in := range []PaymentIntent{PaymentTimely, PaymentLate, PaymentDuplicate, PaymentMalformed, PaymentUnknownContract} {
		if counts[in] == 0 {
			t.Errorf("no %s record in 5000", in)
		}
	}
	t.Logf("intents: %v", counts)
}

func TestPaymentsConfigRejectsBadFractions(t *testing.T) {
	if _, err := NewPaymentGenerator(PaymentsConfig{Count: 1, Late: 0.7, Duplicates: 0.5}); err == nil {
		t.Fatal("fractions summing to 1.2 accepted")
	}
}
