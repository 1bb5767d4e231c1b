package stack

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestStatusPointsAtTheFatalLine: after a crash, Status names the panic
// line of the dead daemon's last run in its log, not an earlier run's; a
// daemon killed without a word in the log is reported as killed.
func TestStatusPointsAtTheFatalLine(t *testing.T) {
	home := t.TempDir()
	t.Setenv(EnvKafkaBrokers, "")
	p := pathsOf(home)
	if err := os.MkdirAll(p.logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	pid := deadPID(t)
	log := strings.Join([]string{
		"2026-12-01T10:00:00.000Z atlas broker: pid 1 serving Kafka at 127.0.0.1:9092",
		"panic: an earlier run's panic",
		fmt.Sprintf("2026-12-01T11:00:00.000Z atlas broker: pid %d serving Kafka at 127.0.0.1:9092, data in x", pid),
		"2026-12-01T11:00:01.000Z atlas connect: session s-0123abcd opened",
		"panic: runtime error: invalid memory address or nil pointer dereference",
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x0]",
		"",
		"goroutine 1 [running]:",
	}, "\n") + "\n"
	if err := os.WriteFile(p.logFile, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeState(p, State{PID: pid, Addr: "127.0.0.1:1", LogFile: p.logFile, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	info, err := Status(t.Context(), home)
	if err != nil {
		t.Fatal(err)
	}
	want := p.logFile + ":5: panic: runtime error: invalid memory address or nil pointer dereference"
	if info.Crash != want || !strings.Contains(info.BrokerError, want) {
		t.Fatalf("crash %q, broker error %q; want %q", info.Crash, info.BrokerError, want)
	}

	// Killed: nothing after the start line.
	killed := fmt.Sprintf("2026-12-01T11:00:00.000Z atlas broker: pid %d serving Kafka at 127.0.0.1:9092\n", pid)
	if err := os.WriteFile(p.logFile, []byte(log+killed), 0o600); err != nil {
		t.Fatal(err)
	}
	info, err = Status(t.Context(), home)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(info.Crash, "no panic or fatal error") || !strings.Contains(info.Crash, "line 9") {
		t.Fatalf("killed daemon: crash %q", info.Crash)
	}
}
