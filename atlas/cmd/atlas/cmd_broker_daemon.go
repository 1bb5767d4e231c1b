package main

import (
	"context"
	"os"

	"github.com/atlas-lakehouse/atlas/atlas/stack"
)

func init() {
	register(command{
		Name:    stack.DaemonArg,
		Summary: "run the broker in the foreground until SIGTERM or SIGINT (what `atlas up` runs detached)",
		Run:     runBrokerDaemon,
		Hidden:  true,
	})
}

// runBrokerDaemon serves the broker in the foreground, logging to stderr.
// `atlas up` starts this same binary detached with this argument; the
// stack package's init takes that path before main runs.
func runBrokerDaemon(_ context.Context, args []string) error {
	if code := stack.DaemonMain(args, os.Stderr); code != 0 {
		return exitCode(code)
	}
	return nil
}
