package state

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// EncodeJoinKeys encodes the join key of every row of the given key
// columns (one per equi-join condition) into a string that is equal for
// equal keys, with the encoding of grouping keys (integers of any width
// alike, floats alike). valid[i] is false when a key of row i is null: SQL
// equality never matches a null, so such a row joins with nothing.
func EncodeJoinKeys(cols []arrow.Array, rows int) (keys []string, valid []bool, err error) {
	encs := make([]keyEncoder, len(cols))
	for i, c := range cols {
		if encs[i], err = newKeyEncoder(c); err != nil {
			return nil, nil, err
		}
	}
	keys, valid = make([]string, rows), make([]bool, rows)
	var buf []byte
	for r := 0; r < rows; r++ {
		ok := true
		buf = buf[:0]
		for i, c := range cols {
			if c.IsNull(r) {
				ok = false
				break
			}
			buf = encs[i](buf, r)
		}
		if ok {
			keys[r], valid[r] = string(buf), true
		}
	}
	return keys, valid, nil
}
