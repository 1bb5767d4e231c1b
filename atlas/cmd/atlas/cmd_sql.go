package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/table"
)

func init() {
	register(command{
		Name:    "sql",
		Summary: "run one SQL statement on the lakehouse and print the result: atlas sql \"SELECT ...\" (- reads stdin)",
		Run:     runSQL,
	})
}

// runSQL runs one statement through engine.Session.SQL and prints its rows
// as Spark's show() does.
func runSQL(ctx context.Context, args []string) error {
	fs := newFlagSet("sql", "[--home DIR] [--max-rows N] \"<statement>\" | -")
	var sf stackFlags
	sf.addHome(fs)
	maxRows := fs.Int("max-rows", 100, "rows to print at most (-1: all)")
	truncate := fs.Bool("truncate", false, "cut cells longer than 20 characters, as show() does by default")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitCode(2)
	}
	query := fs.Arg(0)
	if query == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return fmt.Errorf("read statement from stdin: %w", err)
		}
		query = string(b)
	}
	s := engineBuilder("atlas sql", sf.home).GetOrCreate()
	defer s.Stop()
	df, err := s.SQLContext(ctx, query)
	if err != nil {
		return err
	}
	schema, recs, err := df.Collect(ctx)
	if err != nil {
		return err
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if schema.NumFields() == 0 {
		fmt.Println("OK")
		return nil
	}
	out := table.TextTable(schema, recs, *maxRows, *truncate)
	fmt.Print(out)
	if !strings.HasSuffix(out, "\n") {
		fmt.Println()
	}
	return nil
}
