package main

import (
	"context"
	"os"

	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

func init() {
	register(command{
		Name:    stack.DaemonArg,
		Summary: "run the broker and the Spark Connect server in the foreground until SIGTERM or SIGINT (what `atlas up` runs detached)",
		Run:     runBrokerDaemon,
		Hidden:  true,
	})
}

// runBrokerDaemon serves the broker and Atlas Connect in the foreground,
// logging to stderr. `atlas up` starts this same binary detached with this
// argument (stack.Options.OwnDaemon), so the daemon has the Spark Connect
// server; other programs' daemons are broker-only.
func runBrokerDaemon(_ context.Context, args []string) error {
	if code := stack.DaemonMain(args, os.Stderr, connectService()); code != 0 {
		return exitCode(code)
	}
	return nil
}
