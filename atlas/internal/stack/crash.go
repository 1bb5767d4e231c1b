package stack

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// crashMarkers begin the lines Go's runtime writes when a process dies of
// a panic, a fatal error or a signal it does not handle.
var crashMarkers = []string{"panic: ", "fatal error: ", "SIGQUIT: ", "SIGABRT: ", "SIGSEGV: ", "SIGBUS: "}

// crashLine finds why the daemon pid died in its log: the first panic or
// fatal-error line after the daemon's last start line, as "FILE:LINE:
// text". It says so when the log holds none (the process was killed,
// by SIGKILL or the kernel's out-of-memory killer) and returns "" when
// the log cannot be read.
func crashLine(logFile string, pid int) string {
	f, err := os.Open(logFile)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	start := fmt.Sprintf("pid %d serving", pid)
	n, startLine, found, foundAt := 0, 0, "", 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.Contains(line, start) {
			startLine, found, foundAt = n, "", 0
			continue
		}
		if found != "" || startLine == 0 {
			continue
		}
		for _, m := range crashMarkers {
			if strings.HasPrefix(line, m) {
				found, foundAt = line, n
				break
			}
		}
	}
	switch {
	case found != "":
		if len(found) > 300 {
			found = found[:300] + "..."
		}
		return fmt.Sprintf("%s:%d: %s", logFile, foundAt, found)
	case startLine > 0:
		return fmt.Sprintf("no panic or fatal error in %s after its start (line %d): it was killed (SIGKILL, or out of memory?)", logFile, startLine)
	}
	return ""
}
