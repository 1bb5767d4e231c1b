package exec

import (
	"context"
	"fmt"
)

// restoreState loads every stateful operator's state as of batch version
// (-1: the empty state), and the watermarks the state keeps.
func (q *Query) restoreState(ctx context.Context, version int64) error {
	for _, n := range q.tree.stateful {
		if err := n.op.Restore(ctx, q.opState(n, version)); err != nil {
			return err
		}
	}
	q.tracker.restoreFrom()
	if version >= 0 && len(q.tree.stateful) > 0 {
		q.stateMisses++
		q.stateLoaded = true
	}
	return nil
}

// snapshotState writes every stateful operator's state version of batch
// id.
func (q *Query) snapshotState(ctx context.Context, id int64) error {
	q.tracker.saveTo()
	for _, n := range q.tree.stateful {
		if err := n.op.Snapshot(ctx, q.opState(n, id)); err != nil {
			return fmt.Errorf("batch %d: %w", id, err)
		}
	}
	return nil
}

func (q *Query) opState(n *opNode, version int64) opState {
	return opState{ck: q.cfg.Checkpoint, dir: n.dir, version: version}
}

// rewindState restores the state as it was before batch id, so that a
// batch whose read failed half-way runs again from a clean state: the
// version id-1 from the checkpoint, or the empty state for batch 0.
func (q *Query) rewindState(ctx context.Context, id int64) error {
	return q.restoreState(ctx, id-1)
}
