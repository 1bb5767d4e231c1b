// Command atlas runs and inspects Atlas's local stack: the embedded Kafka
// broker and the Iceberg catalog (up, down, status), and hosts the other
// tools of the project as subcommands. Run `atlas help` for the list.
//
// Each subcommand lives in its own cmd_<name>.go file and registers itself
// from init with [register]; main only dispatches.
package main

import (
	// Other Iceberg catalogs and object stores, chosen by ATLAS_* variables.
	_ "github.com/atlas-lakehouse/atlas/atlas/drivers"

	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// command is one atlas subcommand.
type command struct {
	// Name is what the user types after atlas.
	Name string
	// Summary is the one-line description `atlas help` lists.
	Summary string
	// Run runs the command with the arguments that follow its name. It
	// returns an [exitCode] to end with a status without a message.
	Run func(ctx context.Context, args []string) error
	// Hidden keeps the command out of `atlas help`.
	Hidden bool
}

// commands holds every subcommand by name, filled by the init functions
// of the cmd_*.go files and read-only once main runs.
var commands = map[string]command{}

// register adds a subcommand; it is called from init, and a name
// registered twice is a programming error.
func register(c command) {
	if _, dup := commands[c.Name]; dup {
		panic("atlas: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// exitCode is an error that ends atlas with that status and no message,
// for commands that have already said what went wrong.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches args to a subcommand and returns the exit status; its own
// messages go to stdout (help) and stderr (errors).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			if c, ok := commands[rest[0]]; ok {
				return finish(c.Name, c.Run(ctx, []string{"-h"}), stderr)
			}
			fmt.Fprintf(stderr, "atlas: unknown command %q\n\n", rest[0])
			usage(stderr)
			return 2
		}
		usage(stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "atlas: unknown command %q\n\n", name)
		usage(stderr)
		return 2
	}
	return finish(c.Name, c.Run(ctx, rest), stderr)
}

// finish turns a command's error into an exit status, printing it with
// the configured catalog's secrets masked (a driver's message may quote
// the DSN; lakehouse.Config.Redact).
func finish(name string, err error, stderr io.Writer) int {
	var code exitCode
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &code):
		return int(code)
	}
	fmt.Fprintf(stderr, "atlas %s: %s\n", name, lakehouse.ConfigFromEnv("").Redact(err.Error()))
	return 1
}

// usage lists the visible subcommands with their summaries.
func usage(w io.Writer) {
	fmt.Fprintln(w, "Atlas: Spark-style structured streaming from Kafka to Apache Iceberg, in Go.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: atlas <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	var names []string
	for n, c := range commands {
		if !c.Hidden {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for _, n := range names {
		fmt.Fprintf(tw, "  %s\t%s\n", n, commands[n].Summary)
	}
	fmt.Fprintf(tw, "  %s\t%s\n", "help", "show this list, or a command's flags: atlas help <command>")
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Environment: "+strings.Join(envVars, ", ")+".")
}

// envVars are the environment variables atlas reads, for usage.
var envVars = []string{
	"ATLAS_HOME", "ATLAS_KAFKA_ADDR", "ATLAS_KAFKA_BROKERS", "ATLAS_KAFKA_PARTITIONS",
	"ATLAS_CATALOG_TYPE", "ATLAS_CATALOG_URI", "ATLAS_WAREHOUSE", "ATLAS_CATALOG_PROPS",
	"ATLAS_CHECKPOINT_ROOT", "ATLAS_CONNECT_ADDR",
}
