package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"

	"github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// peakWatch notes the query's peak RSS when its input first reaches a
// number of events, so that one run gives its peak over the first N events
// and over all of them (bench windows --compare-at N): memory that grows
// with the stream shows as a difference between the two.
type peakWatch struct {
	at          int64  // events; 0 turns the watch off
	heapProfile string // when set, in-use heap profiles go to <this>.<events>.pb.gz

	mu      sync.Mutex
	events  int64 // input rows reported so far
	reached int64 // the events count when at was first reached, 0 before
	peakKB  int64 // VmHWM then, in kB
	err     error // of the heap profile written then
}

// listener returns the listener that follows the query's progress. It runs
// on the listener bus after each batch's progress event, so the peak it
// reads may include the first milliseconds of the next batch.
func (w *peakWatch) listener() engine.StreamingQueryListener {
	return &engine.StreamingQueryListenerFuncs{Progress: func(e *engine.QueryProgressEvent) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.events += e.Progress.NumInputRows
		if w.at <= 0 || w.reached > 0 || w.events < w.at {
			return
		}
		w.reached = w.events
		w.peakKB = kilobytes(peakRSS())
		if w.heapProfile != "" {
			w.err = writeInuseHeapProfile(fmt.Sprintf("%s.%d.pb.gz", w.heapProfile, w.reached))
		}
	}}
}

// result returns the events count at which the peak was read (0 when the
// run never reached w.at), the peak then in kB, and the error of the heap
// profile written then.
func (w *peakWatch) result() (reached, peakKB int64, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reached, w.peakKB, w.err
}

// kilobytes parses a /proc/self/status size such as "719224 kB"; -1 when
// it cannot.
func kilobytes(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(s), " kB"), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// mb formats kilobytes as megabytes (10^6 bytes), as the README reports them.
func mb(kb int64) string {
	if kb < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d MB", kb*1024/1_000_000)
}

// writeInuseHeapProfile writes the heap profile (in-use and allocated
// memory as of the most recent garbage collection) to path; it forces no
// collection, so the run it observes is not disturbed.
func writeInuseHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("heap profile %s: %w", path, err)
	}
	return nil
}

// printPeaks prints the peak over the first w.at events next to the peak
// over the whole run, and their difference.
func printPeaks(w *peakWatch, events int64, finalKB int64) {
	reached, atKB, _ := w.result()
	if w.at <= 0 {
		return
	}
	if reached == 0 {
		fmt.Printf("peak RSS compared      --compare-at %d not reached (the query read %d events)\n", w.at, events)
		return
	}
	diff := "unknown"
	if atKB > 0 && finalKB >= 0 {
		diff = fmt.Sprintf("%+.1f%%", 100*float64(finalKB-atKB)/float64(atKB))
	}
	fmt.Printf("peak RSS compared      %s over the first %d events, %s over all %d: %s\n", mb(atKB), reached, mb(finalKB), events, diff)
}
