package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestWriterOptionsRecordTheCheckpointIdentity: the checkpointId,
// checkpointOwner and checkpointClassification options record the
// checkpoint's identity at its first start; a later start naming another
// id is refused before it runs, and a half identity is refused.
func TestWriterOptionsRecordTheCheckpointIdentity(t *testing.T) {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	defer s.Stop()
	in := t.TempDir()
	os.WriteFile(filepath.Join(in, "1.json"), []byte(`{"id":1}`+"\n"), 0o644)
	ck := filepath.Join(t.TempDir(), "ck")
	start := func(id, owner string) error {
		w := s.ReadStream().Schema("id bigint").JSON(in).WriteStream().Format("memory").QueryName("ids").
			Option("checkpointLocation", ck).Option(checkpoint.OptionID, id).Option(checkpoint.OptionClassification, "durable stream").
			Trigger(engine.AvailableNow()).Progress(false)
		if owner != "" {
			w = w.Option(checkpoint.OptionOwner, owner)
		}
		q, err := w.Start()
		if err != nil {
			return err
		}
		return q.AwaitTermination()
	}
	if err := start("ids-v1", "Streaming Data Engineering"); err != nil {
		t.Fatal(err)
	}
	info, err := checkpoint.Inspect(context.Background(), ck, checkpoint.InspectOptions{})
	if err != nil || info.Identity == nil || info.Identity.ID != "ids-v1" || info.Identity.Owner != "Streaming Data Engineering" || info.State != checkpoint.Stopped {
		t.Fatalf("after the first run: %+v %v", info, err)
	}
	if err := start("ids-v2", "Streaming Data Engineering"); err == nil || !strings.Contains(err.Error(), "registered as ids-v1") {
		t.Fatalf("start with another id: %v", err)
	}
	if err := start("ids-v1", ""); err == nil || !strings.Contains(err.Error(), checkpoint.OptionOwner+" missing") {
		t.Fatalf("start without an owner: %v", err)
	}
}
