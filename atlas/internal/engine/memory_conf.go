package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// ConfMemoryMaxRows bounds the rows a memory sink query keeps (Atlas's
// setting; Spark's memory sink keeps every row in the driver, "for
// debugging on low data volumes"). Beyond it the oldest rows are dropped
// as new batches arrive, in append and update mode alike; a complete-mode
// batch larger than the bound keeps its last rows. The query's progress
// reports the rows kept and dropped (sink metrics numRows,
// numRowsDropped, maxRows). Default DefaultMemoryMaxRows; 0 keeps every
// row, as Spark does. Read when the query starts.
const ConfMemoryMaxRows = "atlas.memory.maxRows"

// DefaultMemoryMaxRows is ConfMemoryMaxRows when the session does not set
// it: a stream left running for days must not grow the server's memory
// without end.
const DefaultMemoryMaxRows = 1_000_000

// memoryMaxRows reads ConfMemoryMaxRows.
func (s *Session) memoryMaxRows() (int64, error) {
	v := strings.TrimSpace(s.confValue(ConfMemoryMaxRows))
	if v == "" {
		return DefaultMemoryMaxRows, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s = %q: want a number of rows, 0 or more (0 keeps every row, as Spark's memory sink), such as %d", ConfMemoryMaxRows, v, DefaultMemoryMaxRows)
	}
	return n, nil
}
