package kafka

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kgo"
)

// explicitPartition marks, in a record's context, that its partition came
// from the partition column.
type explicitPartition struct{}

// toRecords turns a batch's rows into Kafka records.
func toRecords(recs []arrow.RecordBatch, c columns, topic string) ([]*kgo.Record, error) {
	var out []*kgo.Record
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			kr := &kgo.Record{Topic: topic}
			if c.topic >= 0 {
				col := r.Column(c.topic)
				if col.IsNull(i) {
					return nil, fmt.Errorf("kafka sink: row %d has a null topic and no topic option is set: filter such rows out or set Option(\"topic\", ...)", i)
				}
				kr.Topic = string(bytesAt(col, i))
			}
			if col := r.Column(c.value); !col.IsNull(i) {
				kr.Value = bytesAt(col, i)
			}
			if c.key >= 0 {
				if col := r.Column(c.key); !col.IsNull(i) {
					kr.Key = bytesAt(col, i)
				}
			}
			if c.partition >= 0 {
				if col := r.Column(c.partition); !col.IsNull(i) {
					p, err := intAt(col, i)
					if err != nil {
						return nil, err
					}
					kr.Partition = p
					kr.Context = context.WithValue(context.Background(), explicitPartition{}, true)
				}
			}
			if c.headers >= 0 {
				if col := r.Column(c.headers).(*array.List); !col.IsNull(i) {
					kr.Headers = headersAt(col, i)
				}
			}
			out = append(out, kr)
		}
	}
	return out, nil
}

func bytesAt(a arrow.Array, i int) []byte {
	switch c := a.(type) {
	case *array.String:
		return []byte(c.Value(i))
	case *array.LargeString:
		return []byte(c.Value(i))
	case *array.StringView:
		return []byte(c.Value(i))
	case *array.Binary:
		return append([]byte{}, c.Value(i)...)
	case *array.LargeBinary:
		return append([]byte{}, c.Value(i)...)
	case *array.BinaryView:
		return append([]byte{}, c.Value(i)...)
	}
	return nil
}

func intAt(a arrow.Array, i int) (int32, error) {
	var v int64
	switch c := a.(type) {
	case *array.Int32:
		v = int64(c.Value(i))
	case *array.Int64:
		v = c.Value(i)
	case *array.Int16:
		v = int64(c.Value(i))
	case *array.Int8:
		v = int64(c.Value(i))
	}
	if v < 0 || v > 1<<31-1 {
		return 0, fmt.Errorf("kafka sink: partition %d is out of range", v)
	}
	return int32(v), nil
}

func headersAt(l *array.List, i int) []kgo.RecordHeader {
	st := l.ListValues().(*array.Struct)
	keys, vals := st.Field(0), st.Field(1)
	start, end := l.ValueOffsets(i)
	var out []kgo.RecordHeader
	for j := int(start); j < int(end); j++ {
		if st.IsNull(j) || keys.IsNull(j) {
			continue
		}
		h := kgo.RecordHeader{Key: string(bytesAt(keys, j))}
		if !vals.IsNull(j) {
			h.Value = bytesAt(vals, j)
		}
		out = append(out, h)
	}
	return out
}

// partitioner sends a record with a partition column value to that
// partition, and every other record where Kafka's default partitioner
// would (murmur2 of the key; sticky for records without a key), as Spark's
// Kafka sink does.
type partitioner struct{ def kgo.Partitioner }

func (p partitioner) ForTopic(topic string) kgo.TopicPartitioner {
	return topicPartitioner{p.def.ForTopic(topic)}
}

type topicPartitioner struct{ def kgo.TopicPartitioner }

func (t topicPartitioner) RequiresConsistency(r *kgo.Record) bool {
	return explicit(r) || t.def.RequiresConsistency(r)
}

func (t topicPartitioner) Partition(r *kgo.Record, n int) int {
	if explicit(r) {
		return int(r.Partition)
	}
	return t.def.Partition(r, n)
}

func explicit(r *kgo.Record) bool {
	return r.Context != nil && r.Context.Value(explicitPartition{}) != nil
}

// OnNewBatch lets a sticky default partitioner move on to another
// partition, as it does when used directly.
func (t topicPartitioner) OnNewBatch() {
	if nb, ok := t.def.(kgo.TopicPartitionerOnNewBatch); ok {
		nb.OnNewBatch()
	}
}
