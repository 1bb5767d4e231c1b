package merge

import (
	"encoding/binary"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// appendKey appends an encoding of row i of the key columns to buf, such
// that two rows get the same bytes exactly when every key value is equal
// (values of one column share one type). ok is false when a key value is
// null: SQL equality never matches a null.
func appendKey(buf []byte, cols []arrow.Array, i int) (out []byte, ok bool) {
	for _, c := range cols {
		if c.IsNull(i) {
			return buf, false
		}
		switch a := c.(type) {
		case *array.String:
			buf = appendBytes(buf, a.Value(i))
		case *array.LargeString:
			buf = appendBytes(buf, a.Value(i))
		case *array.Binary:
			buf = appendBytes(buf, string(a.Value(i)))
		case *array.Int64:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Int32:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Int16:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Int8:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Float64:
			buf = binary.LittleEndian.AppendUint64(buf, expr.NormalFloatBits(a.Value(i)))
		case *array.Float32:
			buf = binary.LittleEndian.AppendUint64(buf, expr.NormalFloatBits(float64(a.Value(i))))
		case *array.Timestamp:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Date32:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(a.Value(i)))
		case *array.Boolean:
			if a.Value(i) {
				buf = append(buf, 1)
			} else {
				buf = append(buf, 0)
			}
		default:
			buf = appendBytes(buf, c.ValueStr(i))
		}
	}
	return buf, true
}

func appendBytes(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// describeKey renders row i of the key columns as name=value pairs, for
// error messages.
func describeKey(names []string, cols []arrow.Array, i int) string {
	parts := make([]string, len(cols))
	for k, c := range cols {
		parts[k] = names[k] + "=" + c.ValueStr(i)
	}
	return strings.Join(parts, ", ")
}
