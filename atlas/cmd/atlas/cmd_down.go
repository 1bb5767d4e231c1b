package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

func init() {
	register(command{
		Name:    "down",
		Summary: "stop the daemon `atlas up` started: the embedded Kafka broker (its data stays on disk) and the Spark Connect server",
		Run:     runDown,
	})
}

func runDown(ctx context.Context, args []string) error {
	var f stackFlags
	fs := newFlagSet("down", "[--home DIR]")
	f.addHome(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	st, found, alive, err := stack.Daemon(f.home)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := stack.Down(ctx, f.home); err != nil {
		return err
	}
	w := os.Stdout
	switch {
	case alive && len(st.External) > 0:
		fmt.Fprintf(w, "stopped the Spark Connect daemon (pid %d) in %s\n", st.PID, time.Since(start).Round(time.Millisecond))
	case alive:
		fmt.Fprintf(w, "stopped broker at %s (pid %d) in %s; data kept in %s\n",
			st.Addr, st.PID, time.Since(start).Round(time.Millisecond), st.DataDir)
	case found:
		fmt.Fprintf(w, "not running (removed the stale pid file of pid %d)\n", st.PID)
	default:
		fmt.Fprintln(w, "not running")
	}
	if stack.External(stack.ListenAddr()) {
		fmt.Fprintf(w, "external Kafka at %s ($%s) is not managed by atlas\n", join(stack.Brokers()), stack.EnvKafkaBrokers)
	}
	return nil
}
