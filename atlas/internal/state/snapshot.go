package state

import (
	"bytes"
	"encoding/gob"
	"fmt"
)

// snapshot is the serialised form of an Aggregator's groups. State is kept
// small by watermark eviction, so each version is a full snapshot; gob is
// enough for slices of numbers and strings.
type snapshot struct {
	Version int
	Keys    []string
	EvictAt []int64
	Updated []int64
	Aggs    []accState
	// Shape guards against restoring state into a different query.
	Shape string
}

func (a *Aggregator) shape() string {
	return a.schema.String()
}

// Save serialises the current groups.
func (a *Aggregator) Save() ([]byte, error) {
	s := snapshot{Version: 1, Keys: a.keyStr, EvictAt: a.evictAt, Updated: a.updated, Shape: a.shape()}
	for _, acc := range a.accs {
		s.Aggs = append(s.Aggs, acc.save())
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&s); err != nil {
		return nil, fmt.Errorf("state: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// Load replaces the groups with a saved snapshot.
func (a *Aggregator) Load(data []byte) error {
	var s snapshot
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return fmt.Errorf("state: decode: %w", err)
	}
	if s.Shape != a.shape() {
		return fmt.Errorf("state: the checkpoint holds state of a different aggregation (%s); the query changed since it was checkpointed: use a new checkpointLocation", s.Shape)
	}
	if len(s.Aggs) != len(a.accs) {
		return fmt.Errorf("state: snapshot has %d aggregates, query has %d", len(s.Aggs), len(a.accs))
	}
	a.keyStr, a.evictAt, a.updated = s.Keys, s.EvictAt, s.Updated
	a.groups = make(map[string]int32, len(s.Keys))
	a.recent.reset()
	a.keyMem = 0
	for i, k := range s.Keys {
		a.groups[k] = int32(i)
		a.keyMem += int64(len(k))
	}
	for i, acc := range a.accs {
		if err := acc.load(s.Aggs[i]); err != nil {
			return fmt.Errorf("state: %s: %w", a.aggs[i].Name, err)
		}
		acc.grow(len(s.Keys))
	}
	return nil
}

func encodeGob(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("state: encode: %w", err)
	}
	return buf.Bytes(), nil
}

func decodeGob(data []byte, v any) error {
	return gob.NewDecoder(bytes.NewReader(data)).Decode(v)
}
