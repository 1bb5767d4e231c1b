package stack

import (
	"context"
	"fmt"
	"io"
)

// DaemonService is a server the daemon runs beside the broker, such as the
// Atlas Connect (Spark Connect) server the atlas CLI adds.
type DaemonService struct {
	// Name labels the service in the state file, the log and `atlas status`.
	Name string
	// Start starts the service for the daemon's home and broker and returns
	// the address it serves and the function that stops it.
	Start func(ctx context.Context, env ServiceEnv) (addr string, stop func(), err error)
}

// ServiceEnv is what a DaemonService needs to know about the stack.
type ServiceEnv struct {
	// Home is the Atlas home directory.
	Home string
	// KafkaAddr is the address the daemon's broker listens on, or the
	// comma-separated external brokers when ATLAS_KAFKA_BROKERS names an
	// external cluster and the daemon runs no broker.
	KafkaAddr string
	// Log receives the service's log lines (the daemon's log).
	Log io.Writer
	// Secrets are the secret settings (SecretEnv names them) the daemon
	// was given, which are not in its environment.
	Secrets map[string]string
}

// startServices starts each service; one that fails is logged and recorded
// as "error: ..." in the returned addresses, and the broker keeps running.
func startServices(ctx context.Context, svcs []DaemonService, env ServiceEnv, logf func(string, ...any)) (map[string]string, []func()) {
	if len(svcs) == 0 {
		return nil, nil
	}
	addrs := map[string]string{}
	var stops []func()
	for _, s := range svcs {
		addr, stop, err := s.Start(ctx, env)
		if err != nil {
			logf("%s not started: %v", s.Name, err)
			addrs[s.Name] = fmt.Sprintf("error: %v", err)
			continue
		}
		logf("%s serving at %s", s.Name, addr)
		addrs[s.Name] = addr
		stops = append(stops, stop)
	}
	return addrs, stops
}
