package engine_test

import (
	"strings"
	"testing"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestMultipleWatermarkPolicyConf: spark.sql.streaming.multipleWatermarkPolicy
// set at runtime (SetConf, as spark.conf.set) reaches the queries started
// after it; a value other than min or max is refused at Start, naming the
// setting, before the query writes anything; UnsetConf brings the default
// back.
func TestMultipleWatermarkPolicyConf(t *testing.T) {
	s := engine.Builder().AppName(t.Name()).Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	t.Cleanup(s.Stop)
	ms, err := s.MemoryStream("src", "v bigint")
	if err != nil {
		t.Fatal(err)
	}
	start := func() error {
		q, err := ms.ToDF().WriteStream().Format("memory").QueryName("policy").Progress(false).Start()
		if err == nil {
			q.Stop()
		}
		return err
	}
	s.SetConf("spark.sql.streaming.multipleWatermarkPolicy", "fastest")
	if err := start(); err == nil || !strings.Contains(err.Error(), "spark.sql.streaming.multipleWatermarkPolicy should be one of min, max") {
		t.Fatalf("start with policy fastest: %v", err)
	}
	s.SetConf("spark.sql.streaming.multipleWatermarkPolicy", "MAX")
	if err := start(); err != nil {
		t.Fatalf("start with policy MAX: %v", err)
	}
	s.SetConf("spark.sql.streaming.multipleWatermarkPolicy", "fastest")
	s.UnsetConf("spark.sql.streaming.multipleWatermarkPolicy")
	if err := start(); err != nil {
		t.Fatalf("start after unset: %v", err)
	}
}
