package kafka

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Schema is the fixed schema of every record the source yields, Spark's
// Kafka source schema as Arrow: key binary, value binary, topic string,
// partition int32, offset int64, timestamp (microseconds, UTC) and
// timestampType int32 (0 CreateTime, 1 LogAppendTime). Every column is
// nullable as in Spark; key is null for records produced without a key.
var Schema = arrow.NewSchema([]arrow.Field{
	{Name: "key", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "topic", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "partition", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "offset", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "timestamp", Type: types.Timestamp, Nullable: true},
	{Name: "timestampType", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
}, nil)

// HeaderType is the type of the headers column: Spark's
// array<struct<key: string, value: binary>>.
var HeaderType = arrow.ListOf(arrow.StructOf(
	arrow.Field{Name: "key", Type: arrow.BinaryTypes.String, Nullable: true},
	arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
))

// SchemaWithHeaders is Schema plus Spark's headers column, the schema of a
// read with includeHeaders=true. A record without headers has null there,
// as in Spark.
var SchemaWithHeaders = arrow.NewSchema(append(append([]arrow.Field(nil), Schema.Fields()...),
	arrow.Field{Name: "headers", Type: HeaderType, Nullable: true}), nil)

// Column positions in Schema.
const (
	colKey = iota
	colValue
	colTopic
	colPartition
	colOffset
	colTimestamp
	colTimestampType
	// numColumns is the number of columns in Schema.
	numColumns
)
