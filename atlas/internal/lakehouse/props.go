package lakehouse

import (
	"context"
	"fmt"
	"maps"

	"github.com/apache/iceberg-go"
)

// SetProperties sets table properties (ALTER TABLE ... SET TBLPROPERTIES),
// such as PropMergeMode, in one metadata commit, retried when another
// writer committed meanwhile.
func (t *Table) SetProperties(ctx context.Context, props map[string]string) error {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	for attempt := 1; ; attempt++ {
		cur, err := t.refreshLocked(ctx)
		if err != nil {
			return err
		}
		tx := cur.NewTransaction()
		if err := tx.SetProperties(iceberg.Properties(maps.Clone(props))); err != nil {
			return fmt.Errorf("lakehouse: set properties of %s: %w", t.name, err)
		}
		next, err := tx.Commit(ctx)
		if err == nil {
			t.cur.Store(next)
			return nil
		}
		if ctx.Err() != nil || attempt >= maxExpireAttempts {
			return fmt.Errorf("lakehouse: set properties of %s: %w", t.name, err)
		}
		if err := sleepCtx(ctx, backoff(attempt)); err != nil {
			return fmt.Errorf("lakehouse: set properties of %s: %w", t.name, err)
		}
	}
}
