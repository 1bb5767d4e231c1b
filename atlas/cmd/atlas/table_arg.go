package main

import (
	"context"
	"flag"
	"strings"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// withTable parses a maintenance command's flags and its one table
// argument (flags may follow it), opens the lakehouse of --home and calls
// fn with the loaded table.
func withTable(ctx context.Context, fs *flag.FlagSet, sf *stackFlags, args []string, fn func(*lakehouse.Table) error) error {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitCode(2)
	}
	s := engineBuilder(fs.Name(), sf.home).GetOrCreate()
	defer s.Stop()
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return err
	}
	tbl, err := lh.LoadTable(ctx, pos[0])
	if err != nil {
		return err
	}
	return fn(tbl)
}

// engineBuilder starts an engine session builder for a command of the CLI
// on the stack whose home is home ("" for $ATLAS_HOME): the CLI, not the
// engine, knows where the stack's broker runs, so it passes the brokers in.
func engineBuilder(name, home string) *engine.SessionBuilder {
	b := engine.Builder().AppName(name)
	if home != "" {
		b = b.Config(engine.ConfHome, home)
	} else {
		home = lakehouse.Home()
	}
	return b.Config(engine.ConfKafkaBrokers, strings.Join(stack.BrokersOf(home), ","))
}
