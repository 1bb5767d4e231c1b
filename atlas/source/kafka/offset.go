package kafka

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/atlas-lakehouse/atlas/atlas/source"
)

// Offsets maps topic and partition to an offset: for a batch end, the offset
// of the first record not included. A partition absent from a start offset
// starts at offset 0 (a partition discovered after the query started is read
// from its beginning, as in Spark).
type Offsets map[string]map[int32]int64

// ParseOffset reads a Spark Kafka offset JSON such as
// {"events":{"0":120,"1":98}}. The empty Offset yields nil Offsets and no
// error: it means the initial offset has not been resolved yet.
func ParseOffset(o source.Offset) (Offsets, error) {
	if o == "" {
		return nil, nil
	}
	var raw map[string]map[string]int64
	if err := json.Unmarshal([]byte(o), &raw); err != nil {
		return nil, fmt.Errorf("kafka offset %q: not {\"topic\":{\"partition\":offset}} JSON: %w", string(o), err)
	}
	if raw == nil {
		return nil, fmt.Errorf("kafka offset %q: not {\"topic\":{\"partition\":offset}} JSON", string(o))
	}
	out := make(Offsets, len(raw))
	for t, ps := range raw {
		m := make(map[int32]int64, len(ps))
		for pk, off := range ps {
			p, err := strconv.ParseInt(pk, 10, 32)
			if err != nil || p < 0 {
				return nil, fmt.Errorf("kafka offset %q: topic %q: partition %q is not a partition number", string(o), t, pk)
			}
			m[int32(p)] = off
		}
		out[t] = m
	}
	return out, nil
}

// FormatOffset writes offsets as Spark's offsets log does, topics sorted by
// name and partitions by number, so equal offsets always give the same
// string. Topics without partitions are left out; no partitions at all give
// "{}".
func FormatOffset(o Offsets) source.Offset {
	topics := make([]string, 0, len(o))
	for t, ps := range o {
		if len(ps) > 0 {
			topics = append(topics, t)
		}
	}
	sort.Strings(topics)
	var b []byte
	b = append(b, '{')
	for i, t := range topics {
		if i > 0 {
			b = append(b, ',')
		}
		tb, _ := json.Marshal(t) // a string always marshals
		b = append(b, tb...)
		b = append(b, ':', '{')
		ps := o.partitions(t)
		for j, p := range ps {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = strconv.AppendInt(b, int64(p), 10)
			b = append(b, '"', ':')
			b = strconv.AppendInt(b, o[t][p], 10)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	return source.Offset(b)
}

// partitions returns the partitions of topic t in ascending order.
func (o Offsets) partitions(t string) []int32 {
	ps := make([]int32, 0, len(o[t]))
	for p := range o[t] {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	return ps
}

// get returns the offset of a partition and whether it is present.
func (o Offsets) get(t string, p int32) (int64, bool) {
	off, ok := o[t][p]
	return off, ok
}

// set stores the offset of a partition.
func (o Offsets) set(t string, p int32, off int64) {
	ps := o[t]
	if ps == nil {
		ps = make(map[int32]int64)
		o[t] = ps
	}
	ps[p] = off
}

// clone returns a deep copy.
func (o Offsets) clone() Offsets {
	out := make(Offsets, len(o))
	for t, ps := range o {
		m := make(map[int32]int64, len(ps))
		for p, off := range ps {
			m[p] = off
		}
		out[t] = m
	}
	return out
}

// each calls fn for every partition, in topic then partition order.
func (o Offsets) each(fn func(t string, p int32, off int64)) {
	topics := make([]string, 0, len(o))
	for t := range o {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	for _, t := range topics {
		for _, p := range o.partitions(t) {
			fn(t, p, o[t][p])
		}
	}
}
