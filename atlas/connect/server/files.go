package server

import (
	"maps"
	"path/filepath"
	"strings"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// FileAccess limits the local files the server's sessions read and write:
// spark.read paths, file sources and sinks, checkpoint locations and
// table locations. A path outside the roots, or denied, is refused with
// its name.
type FileAccess struct {
	// Roots are the directories sessions read and write under.
	Roots []string
	// NoHidden are roots whose hidden entries (.ssh, .aws, ...) are
	// refused, unless another root allows them.
	NoHidden []string
	// Denied are never read or written, even under a root, besides /proc,
	// /sys and /dev; the server adds its token file and its state
	// directory (the query records).
	Denied []string
}

// sessionConf is the configuration every session starts with: cfg.Conf
// plus, with cfg.Files, the file limits, which clients cannot change.
func (c Config) sessionConf() map[string]string {
	conf := maps.Clone(c.Conf)
	if c.Files == nil {
		return conf
	}
	if conf == nil {
		conf = map[string]string{}
	}
	list := string(filepath.ListSeparator)
	denied := append(append([]string(nil), c.Files.Denied...), c.stateDir())
	if c.TokenFile != "" {
		denied = append(denied, c.TokenFile)
	}
	conf[engine.ConfFileRoots] = strings.Join(c.Files.Roots, list)
	conf[engine.ConfFileRootsNoHidden] = strings.Join(c.Files.NoHidden, list)
	conf[engine.ConfFileDenied] = strings.Join(denied, list)
	return conf
}

// serverOnlyConf reports whether a setting is the server's own, which a
// client may read but not set.
func serverOnlyConf(key string) bool { return strings.HasPrefix(key, "atlas.files.") }
