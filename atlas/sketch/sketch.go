// Package sketch holds the probabilistic summaries that
// DataFrame.Stat() builds, with Spark's names and methods
// (org.apache.spark.util.sketch): CountMinSketch (estimateCount,
// totalCount) and BloomFilter (mightContain, expectedFpp).
//
// Items are strings, byte slices or integers; integers of every width
// are the same item (Int(5) and int64(5) count together), as Spark's
// sketches read every integral type as a long.
package sketch

import (
	"encoding/binary"
	"fmt"
)

// itemBytes encodes an item: integers as 8 little-endian bytes after a
// tag, strings and byte slices as their bytes after another tag, so 5 and
// "5" differ.
func itemBytes(buf []byte, item any) ([]byte, error) {
	buf = buf[:0]
	var n int64
	switch v := item.(type) {
	case string:
		return append(append(buf, 's'), v...), nil
	case []byte:
		return append(append(buf, 's'), v...), nil
	case int:
		n = int64(v)
	case int8:
		n = int64(v)
	case int16:
		n = int64(v)
	case int32:
		n = int64(v)
	case int64:
		n = v
	case uint8:
		n = int64(v)
	case uint16:
		n = int64(v)
	case uint32:
		n = int64(v)
	default:
		return nil, fmt.Errorf("unsupported data type %T: sketches take strings, byte slices and integers", item)
	}
	return binary.LittleEndian.AppendUint64(append(buf, 'i'), uint64(n)), nil
}
