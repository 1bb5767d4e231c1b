package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// newFlagSet returns a flag set for subcommand name whose usage shows the
// command's summary and synopsis.
func newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("atlas "+name, flag.ContinueOnError)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: atlas %s %s\n\n%s\n\nflags:\n", name, synopsis, commands[name].Summary)
		fs.PrintDefaults()
	}
	return fs
}

// stackFlags are the flags that say which stack a command works on.
type stackFlags struct {
	home       string
	kafkaAddr  string
	partitions int
	timeout    time.Duration
}

// addHome adds --home to fs.
func (f *stackFlags) addHome(fs *flag.FlagSet) {
	fs.StringVar(&f.home, "home", lakehouse.Home(), "Atlas home directory ($"+lakehouse.EnvHome+")")
}

// addBroker adds --kafka-addr, --partitions and --timeout to fs.
func (f *stackFlags) addBroker(fs *flag.FlagSet) {
	fs.StringVar(&f.kafkaAddr, "kafka-addr", stack.ListenAddr(),
		"address the embedded broker listens on, host:port; port 0 picks a free one ($"+stack.EnvKafkaAddr+")")
	fs.IntVar(&f.partitions, "partitions", envInt(stack.EnvKafkaPartitions, stack.DefaultPartitions),
		"partitions of topics the broker creates on first use ($"+stack.EnvKafkaPartitions+")")
	fs.DurationVar(&f.timeout, "timeout", stack.DefaultStartTimeout, "how long to wait for the broker to answer")
}

// options returns the stack options the flags describe.
func (f *stackFlags) options() stack.Options {
	return stack.Options{Home: f.home, Addr: f.kafkaAddr, Partitions: f.partitions, StartTimeout: f.timeout, OwnDaemon: true}
}

// envInt returns the integer in environment variable name, else def.
func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err == nil && n != 0 {
		return n
	}
	return def
}

// parseInterspersed parses fs's flags wherever they stand among the
// positional arguments (`atlas expire TABLE --older-than 1h` as well as
// `atlas expire --older-than 1h TABLE`) and returns the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
