package lakehouse

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// A commit that loses every attempt to another writer gives up with a
// message that says what happened (how many commits of others, how many
// attempts) and what to do, not the catalog's "requirement failed".
func TestCommitGivingUpSaysWhatHappenedAndWhatToDo(t *testing.T) {
	ctx := context.Background()
	a, b := twoWriters(t, t.TempDir(), nil)
	a.maxAttempts = 3
	others := 0
	// Before each of a's attempts is staged, b commits one batch: a's
	// commit, pinned to the head it read, is refused every time.
	_, err := a.commit(ctx, "append to", Commit{QueryID: "qa", BatchID: 0}, nil,
		func(ctx context.Context, tx *table.Transaction, _ *table.Table, _ iceberg.Properties) error {
			if _, err := b.AppendBatch(ctx, batchesOf(t, genRows(int64(others)*10, 10), 10), Commit{QueryID: "qb", BatchID: int64(others)}); err != nil {
				return err
			}
			others++
			return tx.SetProperties(iceberg.Properties{"x": "y"})
		})
	var ce *ContentionError
	if !errors.As(err, &ce) {
		t.Fatalf("want a ContentionError, got %v", err)
	}
	if ce.Attempts != 3 || ce.OtherCommits != others || others != 3 {
		t.Fatalf("attempts %d, other commits %d (b committed %d times)", ce.Attempts, ce.OtherCommits, others)
	}
	if errors.Unwrap(err) == nil {
		t.Errorf("the error does not unwrap to the catalog's refusal: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"append to lakehouse.gold.events: gave up, nothing committed", "other writers committed to this table 3 times while this write tried 3 times", "Run the write again", "fewer concurrent writers"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message misses %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "requirement failed") {
		t.Errorf("message still shows the catalog's requirement: %s", msg)
	}
	if err := a.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	all, err := a.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, all, genRows(0, 30)) // b's three batches only
	if got := a.cur.Load().Properties()["x"]; got != "" {
		t.Errorf("a's property landed: %q", got)
	}
}
