package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// Restoring a query from its checkpoint: where its sources start, and
// which stateful operators the checkpoint holds state for.

// checkNoOrphanState refuses to resume from a checkpoint holding state,
// after batch version, of a stateful operator this query does not have:
// the operator was removed (or replaced) since the checkpoint was written,
// and the restarted query would silently start over without it. Spark 4
// refuses it the same way (STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA;
// guide: "Recovery Semantics after Changes in a Streaming Query", "any
// changes (that is, additions, deletions, or schema modifications) to the
// stateful operations of a streaming query are not allowed between
// restarts"). Operators the query has check their own state when they load it.
func (q *Query) checkNoOrphanState(ctx context.Context, version int64) error {
	dirs, err := q.cfg.Checkpoint.StateDirs(ctx, version)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	var current, orphans []string
	for _, n := range q.tree.stateful {
		used[n.dir] = true
		current = append(current, operatorName(n.dir))
	}
	for _, d := range dirs {
		if !used[d] {
			orphans = append(orphans, operatorName(d))
		}
	}
	if len(orphans) == 0 {
		return nil
	}
	now := "none"
	if len(current) > 0 {
		now = strings.Join(current, ", ")
	}
	return fmt.Errorf("[STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA] checkpoint %s holds the state of stateful operators this query does not have: %s (this query: %s); stateful operators cannot be added, removed or changed between restarts from one checkpoint: run the query as it was, or give it a new checkpointLocation",
		q.cfg.Checkpoint.Location(), strings.Join(orphans, ", "), now)
}

// operatorName is the progress name of the operator whose state lives in
// dir ("0/aggregate" is stateStoreSave), with its id.
func operatorName(dir string) string {
	id, kind, _ := strings.Cut(dir, "/")
	name := kind
	switch kind {
	case aggregateKind:
		name = "stateStoreSave"
	case joinKind:
		name = "symmetricHashJoin"
	case limitKind:
		name = "globalLimit"
	}
	return name + " (operator " + id + ")"
}

// initialOffset is where the query's sources start, recorded before batch
// 0 as Spark records each source's at sources/<i>/0, so that a replay of
// batch 0 reads the same range. A source with a metadata log of its own
// (the file source's seen-files log, at sources/<i>/) is its own record.
// With resolve, a source without a record is asked and its answer
// recorded; without, a missing record is "" (the source's beginning).
func (q *Query) initialOffset(ctx context.Context, resolve bool) (source.Offset, error) {
	m, ok := q.src.(*multiSource)
	if !ok {
		return q.sourceInitialOffset(ctx, 0, q.src, resolve)
	}
	if _, logging := m.srcs[0].(source.LoggingSource); !logging {
		// Checkpoints of Atlas before 2026-12 kept the offsets of all the
		// sources as one JSON array at sources/0/0.
		init, ok, err := q.cfg.Checkpoint.InitialOffset(ctx, 0)
		if err != nil {
			return "", err
		}
		if ok {
			if parts, err := m.split(init); err == nil && len(parts) == len(m.srcs) {
				return init, nil
			}
		}
	}
	return m.each(ctx, "", func(i int, s source.Source, _ source.Offset) (source.Offset, error) {
		return q.sourceInitialOffset(ctx, i, s, resolve)
	})
}

// sourceInitialOffset is initialOffset for source i.
func (q *Query) sourceInitialOffset(ctx context.Context, i int, s source.Source, resolve bool) (source.Offset, error) {
	if _, logging := s.(source.LoggingSource); logging {
		init, err := s.InitialOffset(ctx)
		if err != nil {
			return "", fmt.Errorf("resolve starting offsets of %s: %w", s.Description(), err)
		}
		return init, nil
	}
	ck := q.cfg.Checkpoint
	init, ok, err := ck.InitialOffset(ctx, i)
	if err != nil || ok || !resolve {
		return init, err
	}
	err = q.retrySource(ctx, true, func(int) (err error) {
		init, err = s.InitialOffset(ctx)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("resolve starting offsets of %s: %w", s.Description(), err)
	}
	if err := ck.WriteInitialOffset(ctx, i, init); err != nil {
		return "", err
	}
	return init, nil
}
