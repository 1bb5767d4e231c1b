package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is Linux's USER_HZ, the unit of the CPU times in
// /proc/PID/stat (100 on every Linux architecture Go supports).
const clockTicks = 100

// pidCPU returns the user and system CPU time of process pid so far, from
// /proc/PID/stat, and false where that cannot be read (not Linux, the
// process is gone).
func pidCPU(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields after it start after the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state): utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * time.Second / clockTicks, true
}

// cpuMeter measures the CPU time one phase of a benchmark takes in this
// process and in the broker daemon: on a shared machine, CPU-seconds are
// what other programs do not inflate.
type cpuMeter struct {
	brokerPID    int
	self, broker time.Duration
	brokerOK     bool
}

func startCPU(brokerPID int) cpuMeter {
	m := cpuMeter{brokerPID: brokerPID, self: processCPU()}
	m.broker, m.brokerOK = pidCPU(brokerPID)
	return m
}

// since reports the CPU time since startCPU as "query 0.91 CPU-s, broker
// 0.32 CPU-s" (who names this process).
func (m cpuMeter) since(who string) string {
	s := fmt.Sprintf("%s %.2f CPU-s", who, (processCPU() - m.self).Seconds())
	if b, ok := pidCPU(m.brokerPID); ok && m.brokerOK {
		s += fmt.Sprintf(", broker %.2f CPU-s", (b - m.broker).Seconds())
	}
	return s
}
