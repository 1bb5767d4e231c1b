package kafka

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// The columns the sink reads, as Spark's Kafka sink.
const (
	ColValue     = "value"
	ColKey       = "key"
	ColTopic     = "topic"
	ColPartition = "partition"
	ColHeaders   = "headers"
)

// columns are the positions of the sink's columns in the output schema, -1
// when absent.
type columns struct {
	value, key, topic, partition, headers int
}

// Validate checks the query's output schema against Spark's Kafka sink
// rules: a string or binary "value" column is required; "key" (string or
// binary), "topic" (string), "partition" (int) and "headers"
// (array<struct<key: string, value: binary>>) are optional; a "topic"
// column is required when the topic option is not set (the option wins
// over the column when both are there). Other columns are ignored.
func Validate(schema *arrow.Schema, topicOption string) error {
	_, err := resolve(schema, topicOption)
	return err
}

func resolve(schema *arrow.Schema, topicOption string) (columns, error) {
	c := columns{value: -1, key: -1, topic: -1, partition: -1, headers: -1}
	for i, f := range schema.Fields() {
		switch f.Name {
		case ColValue:
			c.value = i
		case ColKey:
			c.key = i
		case ColTopic:
			c.topic = i
		case ColPartition:
			c.partition = i
		case ColHeaders:
			c.headers = i
		}
	}
	fields := schema.Fields()
	if c.value < 0 {
		return c, fmt.Errorf("kafka sink: required attribute 'value' not found among the columns %v: add a column named value (string or binary), e.g. Select(ToJSON(Struct(\"*\")).Alias(\"value\"))", names(schema))
	}
	if !isBytes(fields[c.value].Type) {
		return c, fmt.Errorf("kafka sink: value attribute type must be a string or binary, not %s: cast it with Col(\"value\").Cast(\"string\")", fields[c.value].Type)
	}
	if c.key >= 0 && !isBytes(fields[c.key].Type) {
		return c, fmt.Errorf("kafka sink: key attribute type must be a string or binary, not %s: cast it with Col(\"key\").Cast(\"string\")", fields[c.key].Type)
	}
	if topicOption == "" {
		if c.topic < 0 {
			return c, fmt.Errorf("kafka sink: topic option required when no 'topic' attribute is present. Use the topic option for setting a topic: Option(\"topic\", \"events\")")
		}
	}
	if c.topic >= 0 && !isString(fields[c.topic].Type) {
		if topicOption == "" {
			return c, fmt.Errorf("kafka sink: topic attribute type must be a string, not %s", fields[c.topic].Type)
		}
		c.topic = -1 // the option overrides it
	}
	if topicOption != "" {
		c.topic = -1
	}
	if c.partition >= 0 {
		switch fields[c.partition].Type.ID() {
		case arrow.INT32, arrow.INT64, arrow.INT16, arrow.INT8:
		default:
			return c, fmt.Errorf("kafka sink: partition attribute type must be an int, not %s", fields[c.partition].Type)
		}
	}
	if c.headers >= 0 && !isHeaders(fields[c.headers].Type) {
		return c, fmt.Errorf("kafka sink: headers attribute type must be array<struct<key:string,value:binary>>, not %s", fields[c.headers].Type)
	}
	return c, nil
}

func names(schema *arrow.Schema) []string {
	out := make([]string, 0, schema.NumFields())
	for _, f := range schema.Fields() {
		out = append(out, f.Name)
	}
	return out
}

func isString(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	}
	return false
}

func isBytes(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
		return true
	}
	return isString(t)
}

func isHeaders(t arrow.DataType) bool {
	l, ok := t.(*arrow.ListType)
	if !ok {
		return false
	}
	st, ok := l.Elem().(*arrow.StructType)
	if !ok || st.NumFields() != 2 {
		return false
	}
	k, v := st.Field(0), st.Field(1)
	return k.Name == "key" && isString(k.Type) && v.Name == "value" && isBytes(v.Type)
}
