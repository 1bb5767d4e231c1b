package lakehouse

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// PropWriters is the snapshot summary property in which every Atlas commit
// carries forward, from its parent snapshot, the last (batch, write) of
// every streaming query that ever wrote the table, as a JSON object
// {"<query id>": [batch, write]}. The exactly-once check then finds a
// query's last write in the current snapshot, without walking the history:
// it survives snapshot expiry (ExpireSnapshots) and compaction.
// Snapshots written by other engines lack it; the check walks past them.
const PropWriters = "atlas.writers"

// writerMark is a query's last committed (batch, write).
type writerMark [2]int64

// writersOf decodes a snapshot summary's PropWriters (nil when absent or
// unreadable: the ancestry walk is the fallback).
func writersOf(p map[string]string) map[string]writerMark {
	s, ok := p[PropWriters]
	if !ok {
		return nil
	}
	var w map[string]writerMark
	if json.Unmarshal([]byte(s), &w) != nil {
		return nil
	}
	return w
}

// withWriters returns props plus PropWriters: the writers of cur's current
// snapshot (found by walking back to the nearest snapshot carrying them)
// with c's query advanced to c's (batch, write).
func withWriters(cur *table.Table, props iceberg.Properties, c Commit) (iceberg.Properties, error) {
	w := map[string]writerMark{}
	meta := cur.Metadata()
	for s := meta.CurrentSnapshot(); s != nil; {
		if s.Summary != nil {
			if prev := writersOf(s.Summary.Properties); prev != nil {
				maps.Copy(w, prev)
				break
			}
		}
		if s.ParentSnapshotID == nil {
			break
		}
		s = meta.SnapshotByID(*s.ParentSnapshotID)
	}
	if c.QueryID != "" {
		w[c.QueryID] = writerMark{c.BatchID, int64(c.Write)}
	}
	if len(w) == 0 {
		return props, nil
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", PropWriters, err)
	}
	out := maps.Clone(props)
	out[PropWriters] = string(b)
	return out, nil
}
