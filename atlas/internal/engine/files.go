package engine

import (
	"path/filepath"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/fsroots"
)

// File access settings of a session, read when the session is built
// (spark.conf.set cannot change them). A server sets them for its
// clients' sessions; an engine embedded in a program, without them, reads
// and writes what the program may.
const (
	// ConfFileRoots lists the directories (separated by the system's list
	// separator, ':' on Unix) the session's file reads and writes (file
	// sources and sinks, spark.read paths, checkpoint and table locations)
	// are limited to. When set, anything else is refused by name.
	ConfFileRoots = "atlas.files.roots"
	// ConfFileRootsNoHidden lists roots whose hidden entries (names
	// starting with a dot: ~/.ssh, ~/.aws) are refused, unless another
	// root allows them.
	ConfFileRootsNoHidden = "atlas.files.rootsNoHidden"
	// ConfFileDenied lists files and directories never read or written,
	// even under a root (the server's token, TLS key and query records),
	// besides /proc, /sys and /dev.
	ConfFileDenied = "atlas.files.denied"
)

// filePolicy builds the session's file policy from its construction
// settings; nil (no limit) when ConfFileRoots is unset.
func filePolicy(conf map[string]string) *fsroots.Policy {
	v, ok := conf[ConfFileRoots]
	if !ok {
		return nil
	}
	noHidden := map[string]bool{}
	for _, d := range fsroots.SplitList(conf[ConfFileRootsNoHidden]) {
		noHidden[filepath.Clean(d)] = true
	}
	var roots []fsroots.Root
	for _, d := range fsroots.SplitList(v) {
		roots = append(roots, fsroots.Root{Dir: d, NoHidden: noHidden[filepath.Clean(d)]})
	}
	return fsroots.New(roots, fsroots.SplitList(conf[ConfFileDenied]), ConfFileRoots)
}

// CheckPath refuses a local path (or file:// URL) outside the session's
// allowed file roots (ConfFileRoots), naming it; nil when the session has
// no limit, for other URL schemes, and for paths under a root.
func (s *Session) CheckPath(path string) error { return s.files.Check(path) }

// checkPaths checks each path.
func (s *Session) checkPaths(paths []string) error {
	for _, p := range paths {
		if err := s.CheckPath(strings.TrimSpace(p)); err != nil {
			return err
		}
	}
	return nil
}
