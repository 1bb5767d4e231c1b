package kafka

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// Offsets maps topic and partition to an offset: for a batch end, the offset
// of the first record not included. A partition absent from a start offset
// starts at offset 0 (a partition discovered after the query started is read
// from its beginning, as in Spark).
type Offsets map[string]map[int32]int64

// topicIDsKey is the side field of an offset that records the topic id
// (KIP-516) each topic's offsets belong to. A Kafka topic name cannot
// contain "@", so the key never collides with a topic.
const topicIDsKey = "@topicIds"

// topicIDs maps a topic name to its Kafka topic id (base64); a topic whose
// id is unknown (an old checkpoint, a broker without topic ids) is absent.
type topicIDs map[string]string

// ParseOffset reads a Spark Kafka offset JSON such as
// {"events":{"0":120,"1":98}}, ignoring the topic ids Atlas records beside
// the offsets. The empty Offset yields nil Offsets and no error: it means
// the initial offset has not been resolved yet.
func ParseOffset(o source.Offset) (Offsets, error) {
	offs, _, err := parsePosition(o)
	return offs, err
}

// parsePosition reads an offset as the source writes it: Spark's
// {"topic":{"partition":offset}} plus, optionally, the topic ids under
// "@topicIds" ({"events":{"0":120},"@topicIds":{"events":"Xu3...=="}}).
// Offsets written before topic ids were recorded have no ids.
func parsePosition(o source.Offset) (Offsets, topicIDs, error) {
	if o == "" {
		return nil, nil, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(o), &raw); err != nil {
		return nil, nil, fmt.Errorf("kafka offset %q: not {\"topic\":{\"partition\":offset}} JSON: %w", string(o), err)
	}
	if raw == nil {
		return nil, nil, fmt.Errorf("kafka offset %q: not {\"topic\":{\"partition\":offset}} JSON", string(o))
	}
	out := make(Offsets, len(raw))
	var ids topicIDs
	for t, body := range raw {
		if t == topicIDsKey {
			if err := json.Unmarshal(body, &ids); err != nil {
				return nil, nil, fmt.Errorf("kafka offset %q: %s is not {\"topic\":\"id\"}: %w", string(o), topicIDsKey, err)
			}
			continue
		}
		var ps map[string]int64
		if err := json.Unmarshal(body, &ps); err != nil {
			return nil, nil, fmt.Errorf("kafka offset %q: topic %q: not {\"partition\":offset}: %w", string(o), t, err)
		}
		m := make(map[int32]int64, len(ps))
		for pk, off := range ps {
			p, err := strconv.ParseInt(pk, 10, 32)
			if err != nil || p < 0 {
				return nil, nil, fmt.Errorf("kafka offset %q: topic %q: partition %q is not a partition number", string(o), t, pk)
			}
			m[int32(p)] = off
		}
		out[t] = m
	}
	return out, ids, nil
}

// FormatOffset writes offsets as Spark's offsets log does, topics sorted by
// name and partitions by number, so equal offsets always give the same
// string. Topics without partitions are left out; no partitions at all give
// "{}".
func FormatOffset(o Offsets) source.Offset { return formatPosition(o, nil) }

// formatPosition writes offsets as FormatOffset does and then, under
// "@topicIds", the ids of the topics written whose id is known.
func formatPosition(o Offsets, ids topicIDs) source.Offset {
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
	first := true
	for _, t := range topics {
		id := ids[t]
		if id == "" {
			continue
		}
		if first {
			b = append(b, ',', '"')
			b = append(b, topicIDsKey...)
			b = append(b, '"', ':', '{')
			first = false
		} else {
			b = append(b, ',')
		}
		tb, _ := json.Marshal(t)
		ib, _ := json.Marshal(id)
		b = append(b, tb...)
		b = append(b, ':')
		b = append(b, ib...)
	}
	if !first {
		b = append(b, '}')
	}
	b = append(b, '}')
	return source.Offset(b)
}

// SparkOffset returns o without Atlas's topic ids: the offset JSON exactly
// as Spark writes it, for progress reports that Spark's tools read.
func SparkOffset(o source.Offset) source.Offset {
	offs, ids, err := parsePosition(o)
	if err != nil || len(ids) == 0 {
		return o
	}
	return FormatOffset(offs)
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
