package main

import (
	"context"
	"fmt"
	"os"

	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

func init() {
	register(command{
		Name:    "up",
		Summary: "start the embedded stack (detached): the Kafka broker and the Spark Connect server (127.0.0.1:15002, ATLAS_CONNECT_ADDR), and initialise the Iceberg catalog; with an external Kafka ($ATLAS_KAFKA_BROKERS) only the Spark Connect server",
		Run:     runUp,
	})
}

func runUp(ctx context.Context, args []string) error {
	var f stackFlags
	fs := newFlagSet("up", "[--home DIR] [--kafka-addr HOST:PORT] [--partitions N] [--brief]")
	f.addHome(fs)
	f.addBroker(fs)
	brief := fs.Bool("brief", false, "print only which Kafka the stack uses and where Spark Connect listens (for a notebook's Setup cell), not the topics and tables")
	if err := fs.Parse(args); err != nil {
		return err
	}
	info, err := stack.Up(ctx, f.options())
	if err != nil {
		return err
	}
	w := os.Stdout
	for _, n := range info.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	switch {
	case info.External && info.Started:
		fmt.Fprintf(w, "using external Kafka at %s ($%s), no broker started; started the Spark Connect daemon (pid %d)\n", join(info.Brokers), stack.EnvKafkaBrokers, info.PID)
	case info.External:
		fmt.Fprintf(w, "using external Kafka at %s ($%s); the Spark Connect daemon already runs (pid %d)\n", join(info.Brokers), stack.EnvKafkaBrokers, info.PID)
	case info.Started:
		fmt.Fprintf(w, "started broker at %s (pid %d)\n", info.Addr, info.PID)
	default:
		fmt.Fprintf(w, "already running at %s (pid %d)\n", info.Addr, info.PID)
	}
	if *brief {
		if addr := info.Services["connect"]; addr != "" {
			url := "sc://" + addr
			if ep, ok := readEndpoint(info.Home); ok && ep.Addr == addr {
				url = ep.URL
			}
			fmt.Fprintf(w, "Spark Connect at %s\n", url)
		}
		return nil
	}
	fmt.Fprintln(w)
	printInfo(w, info)
	return nil
}
