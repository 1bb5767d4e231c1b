// Package home resolves the Atlas home directory, the root of all local
// state (broker data, catalog, warehouse, checkpoints, assets). It depends
// on the standard library only, so the client, the server and the CLI
// resolve it the same way without linking each other's code.
package home

import (
	"os"
	"path/filepath"
)

// Env is the environment variable that sets the Atlas home directory.
const Env = "ATLAS_HOME"

// Dir returns the Atlas home directory: $ATLAS_HOME (made absolute), else
// $HOME/.atlas, else atlas under the temporary directory.
func Dir() string {
	if h := os.Getenv(Env); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			return abs
		}
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".atlas")
	}
	return filepath.Join(os.TempDir(), "atlas")
}
