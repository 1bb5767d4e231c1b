package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestOffsetSeqMetadataForBatch reads the late-events watermark source of
// SPARK-40925 (the previous offsets entry) from entries in the format
// Atlas has always written (and Spark writes: v1, metadata JSON, offsets),
// and reports a missing entry or a negative id as absent, as Spark's
// offsetSeqMetadataForBatchId does.
func TestOffsetSeqMetadataForBatch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ck, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	// An entry written by an earlier Atlas, byte for byte, with a Spark
	// conf map it does not know about.
	old := "v1\n{\"batchWatermarkMs\":1764496740000,\"batchTimestampMs\":1764497000123,\"conf\":{\"spark.sql.shuffle.partitions\":\"1\"}}\n{\"rows\":4}"
	if err := os.MkdirAll(filepath.Join(dir, "offsets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "offsets", "3"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	m, ok, err := ck.OffsetSeqMetadataForBatch(ctx, 3)
	if err != nil || !ok || m.BatchWatermarkMs != 1764496740000 || m.BatchTimestampMs != 1764497000123 {
		t.Fatalf("batch 3: %+v %v %v", m, ok, err)
	}
	for _, id := range []int64{-1, 2} {
		if m, ok, err := ck.OffsetSeqMetadataForBatch(ctx, id); err != nil || ok || m.BatchWatermarkMs != 0 {
			t.Fatalf("batch %d: %+v %v %v, want absent", id, m, ok, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "offsets", "4"), []byte("v9\n{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ck.OffsetSeqMetadataForBatch(ctx, 4); err == nil {
		t.Fatal("an unknown format must be an error, not a zero watermark")
	}
}
