package main

import (
	"context"
	"flag"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
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
	s := engine.Builder().AppName(fs.Name()).Config(engine.ConfHome, sf.home).GetOrCreate()
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
