package jsonx

import (
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD, missing from package syscall.
const rusageThread = 1

// threadCPU returns the CPU time the calling OS thread has used, so a
// benchmark locked to its thread can report throughput per busy core even
// on a machine shared with other work.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
