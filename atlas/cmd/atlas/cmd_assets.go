package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/atlas-lakehouse/atlas/atlas/internal/echartsfetch"
	"github.com/atlas-lakehouse/atlas/atlas/internal/echartsjs"
)

func init() {
	register(command{
		Name:    "assets",
		Summary: "fetch the echarts bundle the live charts inline (npm pack, checked against kernel/echarts.integrity) into $ATLAS_HOME/assets/echarts",
		Run:     runAssets,
	})
}

// runAssets installs echarts where charts look for it, for a machine whose
// kernel was installed without it (npm was missing) or whose bundle was
// deleted: the note "Charts are off" names this command.
func runAssets(ctx context.Context, args []string) error {
	fs := newFlagSet("assets", "[--dir DIR]")
	dir := fs.String("dir", echartsjs.Dir(), "directory to install echarts into (charts read DIR/dist/echarts.min.js)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitCode(2)
	}
	if err := echartsfetch.Fetch(ctx, *dir); err != nil {
		return fmt.Errorf("fetch echarts %s into %s: %w", echartsjs.Version, *dir, err)
	}
	bundle := filepath.Join(*dir, "dist", "echarts.min.js")
	fmt.Fprintf(os.Stdout, "echarts %s installed: %s\n", echartsjs.Version, bundle)
	if p := os.Getenv(echartsjs.EnvJS); p != "" && p != bundle {
		fmt.Fprintf(os.Stdout, "note: %s=%s overrides it; unset it to use this bundle\n", echartsjs.EnvJS, p)
	}
	return nil
}
