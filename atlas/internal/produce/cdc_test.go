package produce

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// scenarioCDC is the configuration the CDC tests share.
func scenarioCDC(seed int64) CDCConfig {
	return CDCConfig{Count: 40_000, Seed: seed, UpdateFraction: 0.6, DeleteFraction: 0.05}
}

func mustCDC(t *testing.T, cfg CDCConfig) []ChangeRecord {
	t.Helper()
	recs, err := GenerateCDC(cfg)
	if err != nil {
		t.Fatalf("GenerateCDC(%+v): %v", cfg, err)
	}
	return recs
}

func TestGenerateCDCIsDeterministic(t *testing.T) {
	a := mustCDC(t, scenarioCDC(1))
	b := mustCDC(t, scenarioCDC(1))
	c := mustCDC(t, scenarioCDC(2))
	if len(a) != 40_000 || len(b) != len(a) || len(c) != len(a) {
		t.Fatalf("lengths %d, %d, %d; want 40000 each", len(a), len(b), len(c))
	}
	differ := 0
	for i := range a {
		if !bytes.Equal(a[i].Key, b[i].Key) || !bytes.Equal(a[i].Value, b[i].Value) {
			t.Fatalf("seed 1 run twice differs at change %d: %s / %s", i, a[i].Value, b[i].Value)
		}
		if !bytes.Equal(a[i].Value, c[i].Value) {
			differ++
		}
	}
	if differ < len(a)/2 {
		t.Errorf("seeds 1 and 2 differ in only %d of %d changes", differ, len(a))
	}
}

func TestGenerateCDCValuesDecodeIntoChange(t *testing.T) {
	recs := mustCDC(t, scenarioCDC(3))
	var nulls int
	for i, r := range recs {
		var ch Change
		dec := json.NewDecoder(bytes.NewReader(r.Value))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ch); err != nil {
			t.Fatalf("change %d: %s does not decode: %v", i, r.Value, err)
		}
		if !sameChange(ch, r.Change) {
			t.Fatalf("change %d decodes to %+v, generator says %+v", i, ch, r.Change)
		}
		if want := ch.Invoice + "|" + ch.StockCode; string(r.Key) != want {
			t.Fatalf("change %d: key %q, want %q", i, r.Key, want)
		}
		if ts, err := time.Parse(TimeLayout, ch.TS); err != nil || !ts.Equal(r.Time) {
			t.Fatalf("change %d: ts %q (%v), want %v", i, ch.TS, err, r.Time)
		}
		// The raw JSON spells doubles as doubles and a missing customer as null.
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(r.Value, &raw); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw["price"]), ".") {
			t.Fatalf("change %d: price %s is not spelled as a double", i, raw["price"])
		}
		if ch.CustomerID == nil {
			nulls++
			if string(raw["CustomerID"]) != "null" {
				t.Fatalf("change %d: CustomerID %s, want null", i, raw["CustomerID"])
			}
		} else if !strings.HasSuffix(string(raw["CustomerID"]), ".0") {
			t.Fatalf("change %d: CustomerID %s, want an integral double like 17850.0", i, raw["CustomerID"])
		}
	}
	if share := float64(nulls) / float64(len(recs)); share < 0.1 || share > 0.3 {
		t.Errorf("null CustomerID share %.3f, want about 0.2", share)
	}
}

// TestGenerateCDCKeyLifecycle replays the changes against an independent
// model of each key's existence: a key's first change and its first change
// after a delete are inserts, updates and deletes hit only existing keys.
func TestGenerateCDCKeyLifecycle(t *testing.T) {
	cfg := scenarioCDC(4)
	recs := mustCDC(t, cfg)
	exists := map[string]bool{}
	changes := map[string]int{}
	var ops = map[string]int64{}
	for i, r := range recs {
		k := string(r.Key)
		op := r.Change.Op
		ops[op]++
		changes[k]++
		switch {
		case op == OpInsert && exists[k]:
			t.Fatalf("change %d inserts existing key %s", i, k)
		case op != OpInsert && !exists[k]:
			t.Fatalf("change %d: %q on key %s that does not exist", i, op, k)
		}
		exists[k] = op != OpDelete
	}
	wantKeys := int64(math.Round(float64(cfg.Count) * (1 - cfg.UpdateFraction - cfg.DeleteFraction)))
	if int64(len(changes)) != wantKeys {
		t.Errorf("%d distinct keys, want %d", len(changes), wantKeys)
	}
	n := int64(len(recs))
	within(t, "updates", ops[OpUpdate], n, cfg.UpdateFraction)
	within(t, "deletes", ops[OpDelete], n, cfg.DeleteFraction)
	if ops[OpInsert]+ops[OpUpdate]+ops[OpDelete] != n {
		t.Errorf("ops %v do not sum to %d", ops, n)
	}

	s := SummarizeCDC(recs)
	maxChanges := 0
	for _, c := range changes {
		maxChanges = max(maxChanges, c)
	}
	if s.Inserts != ops[OpInsert] || s.Updates != ops[OpUpdate] || s.Deletes != ops[OpDelete] ||
		s.DistinctKeys != int64(len(changes)) || s.MaxChangesPerKey != int64(maxChanges) || s.Reinserts != ops[OpInsert]-int64(len(changes)) {
		t.Errorf("SummarizeCDC = %+v; replay counts ops %v, %d keys, max %d changes per key", s, ops, len(changes), maxChanges)
	}
}

// TestGenerateCDCRepeatsKeysWithinABatch checks that a micro-batch sized
// slice of the stream often holds several changes of one key.
func TestGenerateCDCRepeatsKeysWithinABatch(t *testing.T) {
	recs := mustCDC(t, scenarioCDC(5))
	const batch = 500
	batchesWithRepeats := 0
	for lo := 0; lo < len(recs); lo += batch {
		seen := map[string]bool{}
		for _, r := range recs[lo:min(lo+batch, len(recs))] {
			if seen[string(r.Key)] {
				batchesWithRepeats++
				break
			}
			seen[string(r.Key)] = true
		}
	}
	if batches := len(recs) / batch; batchesWithRepeats < batches*9/10 {
		t.Errorf("only %d of %d batches of %d changes hold a key twice", batchesWithRepeats, batches, batch)
	}
}

func TestGenerateCDCValuesLookLikeOnlineRetail(t *testing.T) {
	recs := mustCDC(t, scenarioCDC(6))
	var uk, negative int
	prev := time.Time{}
	for i, r := range recs {
		ch := r.Change
		inv, err := strconv.Atoi(ch.Invoice)
		if err != nil || len(ch.Invoice) != 6 || inv < 536365 {
			t.Fatalf("change %d: invoice %q is not a 6-digit number from 536365", i, ch.Invoice)
		}
		if ch.Quantity == 0 || ch.Quantity < -12 || ch.Quantity > 48 {
			t.Fatalf("change %d: quantity %d outside -12..-1, 1..48", i, ch.Quantity)
		}
		if ch.Quantity < 0 {
			negative++
		}
		if ch.Price <= 0 || math.Round(ch.Price*100)/100 != ch.Price {
			t.Fatalf("change %d: price %v is not a positive amount in cents", i, ch.Price)
		}
		if ch.Country == "United Kingdom" {
			uk++
		}
		if !r.Time.After(prev) {
			t.Fatalf("change %d: ts %v does not increase from %v", i, r.Time, prev)
		}
		prev = r.Time
	}
	if recs[0].Change.Invoice != "536365" || recs[0].Change.TS != "2010-12-01T08:26:00.000Z" {
		t.Errorf("first change %s, want invoice 536365 at 2010-12-01T08:26:00.000Z", recs[0].Value)
	}
	if share := float64(uk) / float64(len(recs)); share < 0.8 {
		t.Errorf("United Kingdom share %.3f, want it dominant (about 0.89)", share)
	}
	if share := float64(negative) / float64(len(recs)); share == 0 || share > 0.06 {
		t.Errorf("negative quantity share %.4f, want a few (about 0.03)", share)
	}
}

func TestGenerateCDCKeysBound(t *testing.T) {
	// Fewer changes than keys: every change introduces a new key.
	recs := mustCDC(t, CDCConfig{Count: 300, Keys: 1000, Seed: 7, UpdateFraction: 0.9})
	if s := SummarizeCDC(recs); s.Inserts != 300 || s.DistinctKeys != 300 {
		t.Errorf("300 changes over 1000 keys: %+v, want 300 inserts of distinct keys", s)
	}
	// Few keys, many changes, deletes: keys are re-inserted.
	recs = mustCDC(t, CDCConfig{Count: 5000, Keys: 20, Seed: 8, UpdateFraction: 0.5, DeleteFraction: 0.2})
	s := SummarizeCDC(recs)
	if s.DistinctKeys != 20 || s.Reinserts == 0 || s.Deletes == 0 {
		t.Errorf("5000 changes over 20 keys: %+v, want 20 keys, some deletes and re-inserts", s)
	}
	for _, cfg := range []CDCConfig{{Count: -1}, {Count: 1, UpdateFraction: 0.7, DeleteFraction: 0.4}, {Count: 1, Keys: -2}} {
		if _, err := GenerateCDC(cfg); err == nil {
			t.Errorf("GenerateCDC(%+v) accepted an invalid config", cfg)
		}
	}
}

// sameChange compares two changes, CustomerID by value.
func sameChange(a, b Change) bool {
	ac, bc := a.CustomerID, b.CustomerID
	a.CustomerID, b.CustomerID = nil, nil
	if a != b || (ac == nil) != (bc == nil) {
		return false
	}
	return ac == nil || *ac == *bc
}
