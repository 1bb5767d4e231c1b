package stack

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// Down stops the broker daemon of home (lakehouse.Home() when empty): it
// sends SIGTERM, on which the daemon writes its state to disk and exits,
// and waits up to [DefaultStopTimeout] for the exit. A daemon that is not
// running is not an error; leftover pid files of a dead one are removed.
func Down(ctx context.Context, home string) error {
	o, err := Options{Home: home}.withDefaults()
	if err != nil {
		return err
	}
	p := pathsOf(o.Home)
	st, ok, err := readState(p)
	if err != nil || !ok {
		return err
	}
	if !processAlive(st.PID) {
		removeState(p, st.PID)
		return nil
	}
	if err := syscall.Kill(st.PID, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stack: signal broker daemon pid %d: %w", st.PID, err)
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultStopTimeout)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for processAlive(st.PID) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("stack: broker daemon pid %d did not exit within %s of SIGTERM (%v); see %s, or kill -9 %d",
				st.PID, DefaultStopTimeout, ctx.Err(), p.logFile, st.PID)
		case <-tick.C:
		}
	}
	removeState(p, st.PID)
	return nil
}
