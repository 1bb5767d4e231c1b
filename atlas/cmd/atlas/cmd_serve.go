package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

func init() {
	register(command{
		Name:    "serve",
		Summary: "serve the engine over Spark Connect in the foreground until SIGINT or SIGTERM (`atlas up` runs it in the daemon)",
		Run:     runServe,
	})
}

// runServe runs an Atlas Connect server on its own, over the home's
// lakehouse and the broker the environment names, and prints the address
// it listens on once clients can connect.
func runServe(ctx context.Context, args []string) error {
	var f stackFlags
	fs := newFlagSet("serve", "[--home DIR] [--addr HOST:PORT] [--no-resume] [--allow-remote] [--tls | --tls-cert FILE --tls-key FILE] [--no-auth]")
	f.addHome(fs)
	var sec connectSecurity
	sec.addFlags(fs)
	addr := fs.String("addr", server.Config{}.ListenAddr(), "address to listen on, host:port; port 0 picks a free one ($"+server.EnvAddr+")")
	noResume := fs.Bool("no-resume", false, "neither restart the streaming queries the previous run left (their records stay for a later start) nor record new ones ($"+server.EnvResume+"=0)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	conf := secretConf(stack.TakeSecrets())
	conf[engine.ConfHome] = f.home
	cfg := server.Config{Addr: *addr, Conf: conf, Log: os.Stderr, StateDir: server.StateDir(f.home), NoResume: *noResume}
	notes, err := sec.apply(f.home, *addr, &cfg)
	if err != nil {
		return err
	}
	srv, err := server.Start(cfg)
	if err != nil {
		return err
	}
	ep := endpointOf(srv.Addr(), cfg)
	fmt.Printf("atlas connect: serving Spark Connect at %s (%s), lakehouse in %s, Kafka at %s\n",
		srv.Addr(), ep.URL, f.home, strings.Join(stack.Brokers(), ","))
	for _, n := range append(notes, ep.Notes...) {
		fmt.Printf("atlas connect: %s\n", n)
	}
	<-ctx.Done()
	srv.Stop()
	return nil
}

// connectService is the Spark Connect server as a service of the daemon
// `atlas up` starts: sessions use the daemon's home and broker.
func connectService() stack.DaemonService {
	return stack.DaemonService{Name: "connect", Start: func(_ context.Context, env stack.ServiceEnv) (string, func(), error) {
		conf := secretConf(env.Secrets)
		conf[engine.ConfHome], conf[engine.ConfKafkaBrokers] = env.Home, env.KafkaAddr
		cfg := server.Config{Conf: conf, Log: env.Log, StateDir: server.StateDir(env.Home)}
		notes, err := securityFromEnv().apply(env.Home, cfg.ListenAddr(), &cfg)
		if err != nil {
			return "", nil, err
		}
		srv, err := server.Start(cfg)
		if err != nil {
			return "", nil, err
		}
		for _, n := range notes {
			fmt.Fprintf(env.Log, "%s atlas connect: %s\n", time.Now().UTC().Format(time.RFC3339), n)
		}
		if err := writeEndpoint(env.Home, endpointOf(srv.Addr(), cfg)); err != nil {
			srv.Stop()
			return "", nil, err
		}
		return srv.Addr(), srv.Stop, nil
	}}
}
