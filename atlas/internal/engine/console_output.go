package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sink/console"
)

// ConfConsoleRetainedBatches is how many printed micro-batches a console
// sink query keeps in memory for clients (the notebook cell that waits on
// the query prints them; ConsoleOutput shows the last few later). Default
// console.DefaultRetainedBatches (20); 0 keeps none. Each kept batch holds
// at most console.MaxBatchText bytes, so a query's ring is bounded. An
// Atlas setting: Spark's console sink prints to the driver's stdout only.
const ConfConsoleRetainedBatches = "atlas.console.retainedBatches"

// maxConsoleRetainedBatches bounds ConfConsoleRetainedBatches (1,000
// batches of at most 256 KiB each).
const maxConsoleRetainedBatches = 1000

// consoleRetainedBatches reads ConfConsoleRetainedBatches.
func (s *Session) consoleRetainedBatches() (int, error) {
	v := strings.TrimSpace(s.confValue(ConfConsoleRetainedBatches))
	if v == "" {
		return console.DefaultRetainedBatches, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxConsoleRetainedBatches {
		return 0, fmt.Errorf("%s = %q: want a number of batches from 0 to %d, such as %d", ConfConsoleRetainedBatches, v, maxConsoleRetainedBatches, console.DefaultRetainedBatches)
	}
	return n, nil
}

// ConsoleOutput returns the printed batches of a console sink query whose
// id is greater than after, oldest first, at most limit (the newest;
// limit <= 0: all kept), and whether batches after after were printed but
// are no longer kept. ok is false when the query's sink is not the console.
func (sq *StreamingQuery) ConsoleOutput(after int64, limit int) (batches []console.Printed, missed, ok bool) {
	if sq.console == nil {
		return nil, false, false
	}
	batches, missed = sq.console.After(after, limit)
	return batches, missed, true
}

// ConsoleRetained is how many printed batches the query keeps (0 for a
// query whose sink is not the console).
func (sq *StreamingQuery) ConsoleRetained() int {
	if sq.console == nil {
		return 0
	}
	return sq.console.Capacity()
}
