package exec

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
)

// TestOpStateVersions: a saved version reads back through restoreWhole,
// version -1 is the empty state, a missing version names the checkpoint,
// the version, the operator's directory and the operator the query lacks,
// and an error of the operator's own decoding names the checkpoint once.
func TestOpStateVersions(t *testing.T) {
	ctx := context.Background()
	loc := t.TempDir()
	ck, err := checkpoint.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	at := func(v int64) opState { return opState{ck: ck, dir: "1/join", version: v} }
	if _, err := at(3).save(ctx, func() ([]byte, error) { return []byte("three"), nil }); err != nil {
		t.Fatal(err)
	}
	var got string
	load := func(b []byte) error { got = string(b); return nil }
	if err := at(3).restoreWhole(ctx, []byte("empty"), "this join", load); err != nil || got != "three" {
		t.Fatalf("version 3: %q, %v", got, err)
	}
	if err := at(-1).restoreWhole(ctx, []byte("empty"), "this join", load); err != nil || got != "empty" {
		t.Fatalf("version -1: %q, %v", got, err)
	}
	err = at(4).restoreWhole(ctx, nil, "this join", load)
	for _, part := range []string{"checkpoint " + ck.Location(), "state version 4 of 1/join is missing", "without this join", "new checkpointLocation"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Fatalf("missing version: %v, want it to say %q", err, part)
		}
	}
	if strings.Count(err.Error(), "checkpoint "+ck.Location()) != 1 {
		t.Fatalf("the location is named more than once: %v", err)
	}
	bad := errors.New("corrupt")
	err = at(3).restoreWhole(ctx, nil, "this join", func([]byte) error { return bad })
	if !errors.Is(err, bad) || !strings.HasPrefix(err.Error(), "checkpoint "+ck.Location()+": ") {
		t.Fatalf("decode error: %v", err)
	}
}
