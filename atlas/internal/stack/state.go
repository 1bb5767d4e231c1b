package stack

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// State is what a running daemon records in $ATLAS_HOME/run/broker.json.
type State struct {
	PID        int       `json:"pid"`
	Addr       string    `json:"addr"`
	DataDir    string    `json:"data_dir"`
	LogFile    string    `json:"log_file"`
	Partitions int       `json:"partitions"`
	StartedAt  time.Time `json:"started_at"`
	// Services maps each service the daemon runs beside the broker to its
	// address, or to "error: ..." when it failed to start.
	Services map[string]string `json:"services,omitempty"`
	// External lists the brokers of the external Kafka cluster
	// (ATLAS_KAFKA_BROKERS) a daemon runs its services against; it then
	// runs no broker, and Addr, DataDir and Partitions are empty.
	External []string `json:"external,omitempty"`
}

// writeState records st in the run directory: the JSON state file and the
// plain pid file, each written to a temporary name and renamed into place.
func writeState(p paths, st State) error {
	if err := os.MkdirAll(p.runDir, 0o755); err != nil {
		return fmt.Errorf("stack: create run dir %s: %w", p.runDir, err)
	}
	js, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("stack: encode broker state: %w", err)
	}
	if err := writeFileAtomic(p.stateFile, append(js, '\n')); err != nil {
		return err
	}
	return writeFileAtomic(p.pidFile, []byte(strconv.Itoa(st.PID)+"\n"))
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("stack: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("stack: rename %s to %s: %w", tmp, filepath.Base(path), err)
	}
	return nil
}

// readState returns the recorded daemon state; ok is false when there is
// none. A pid file without a state file (an interrupted start) yields a
// State with only PID set.
func readState(p paths) (st State, ok bool, err error) {
	js, err := os.ReadFile(p.stateFile)
	if err == nil {
		if err := json.Unmarshal(js, &st); err != nil {
			return st, false, fmt.Errorf("stack: corrupt broker state file %s: %w (remove it if no broker runs)", p.stateFile, err)
		}
		return st, true, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return st, false, fmt.Errorf("stack: read broker state %s: %w", p.stateFile, err)
	}
	pid, err := os.ReadFile(p.pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return st, false, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("stack: read broker pid file %s: %w", p.pidFile, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(pid)))
	if err != nil {
		return st, false, fmt.Errorf("stack: corrupt broker pid file %s: %w (remove it if no broker runs)", p.pidFile, err)
	}
	return State{PID: n}, true, nil
}

// removeState deletes the state and pid files if they still belong to pid
// (0: whoever owns them).
func removeState(p paths, pid int) {
	if pid != 0 {
		if st, ok, _ := readState(p); ok && st.PID != pid {
			return
		}
	}
	os.Remove(p.stateFile)
	os.Remove(p.pidFile)
}

// processAlive reports whether pid names a live process that is a broker
// daemon. A zombie (exited, not yet reaped) is not alive; on Linux a live
// process whose command line lacks [DaemonArg] is a reused pid and is not
// ours either.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// Fields after the parenthesised command: "pid (comm) S ...".
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
			if s := stat[i+2]; s == 'Z' || s == 'X' {
				return false
			}
		}
	}
	if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		for _, arg := range strings.Split(string(cmd), "\x00") {
			if arg == DaemonArg {
				return true
			}
		}
		return false
	}
	return true
}

// Daemon returns the state recorded by the broker daemon of home
// (lakehouse.Home() when empty). found is false when nothing is recorded;
// alive tells whether the recorded process still runs (false: a stale pid
// file, which [Up] and [Down] remove).
func Daemon(home string) (st State, found, alive bool, err error) {
	o, err := Options{Home: home}.withDefaults()
	if err != nil {
		return st, false, false, err
	}
	st, found, err = readState(pathsOf(o.Home))
	if err != nil || !found {
		return st, found, false, err
	}
	return st, true, processAlive(st.PID), nil
}
