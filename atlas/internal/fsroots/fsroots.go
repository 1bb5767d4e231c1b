// Package fsroots limits the local files a server session reads and
// writes to allowed root directories. A path is checked after it is made
// absolute and its symbolic links are resolved, so neither "..", a
// relative path nor a link inside a root reaches a file outside. Some
// paths are never allowed, even under a root: /proc, /sys, /dev and the
// server's own secrets (its token file, its TLS key, its query records).
package fsroots

import (
	"errors"
	"fmt"

	"path/filepath"
	"strings"
)

// ErrOutside is wrapped by every refusal.
var ErrOutside = errors.New("outside the allowed file roots")

// alwaysDenied are the system trees no session reads or writes.
var alwaysDenied = []string{"/proc", "/sys", "/dev"}

// Policy is a set of allowed roots and denied paths. The zero Policy (and
// a nil one) allows everything: an engine embedded in a program reads
// what the program may.
type Policy struct {
	roots  []string
	denied []string
	// hiddenUnder are roots whose hidden entries (names starting with a
	// dot, such as ~/.ssh) are denied unless another root allows them.
	hiddenUnder []string
	setting     string
}

// Root is one allowed directory.
type Root struct {
	// Dir is the directory.
	Dir string
	// NoHidden denies the entries under Dir whose names start with a dot
	// (~/.ssh, ~/.aws), unless another root covers them.
	NoHidden bool
}

// New returns the policy allowing roots and denying denied (files or
// directories) and the system trees. setting names where the roots are
// configured, for the refusal's message.
func New(roots []Root, denied []string, setting string) *Policy {
	p := &Policy{setting: setting}
	for _, r := range roots {
		if r.Dir == "" {
			continue
		}
		d := resolve(r.Dir)
		p.roots = append(p.roots, d)
		if r.NoHidden {
			p.hiddenUnder = append(p.hiddenUnder, d)
		}
	}
	for _, d := range append(append([]string(nil), alwaysDenied...), denied...) {
		if d != "" {
			p.denied = append(p.denied, resolve(d))
		}
	}
	return p
}

// Roots are the allowed directories, resolved.
func (p *Policy) Roots() []string {
	if p == nil {
		return nil
	}
	return append([]string(nil), p.roots...)
}

// Check returns nil when path may be read or written: a URL of another
// scheme than file:// (s3://, ...) is not a local file and passes; a local
// path (relative ones against the working directory) must lie under a
// root and outside the denied paths. A glob is checked by the directory
// before its first wildcard; what it lists is checked file by file.
func (p *Policy) Check(path string) error {
	if p == nil || path == "" {
		return nil
	}
	local, ok := localPath(path)
	if !ok {
		return nil
	}
	if i := strings.IndexAny(local, "*?[{"); i >= 0 {
		local = filepath.Dir(local[:i] + "x")
	}
	abs := resolve(local)
	for _, d := range p.denied {
		if within(abs, d) {
			return fmt.Errorf("%w: %s is never readable or writable by a session", ErrOutside, path)
		}
	}
	for _, r := range p.roots {
		if within(abs, r) && !p.hidden(abs, r) {
			return nil
		}
	}
	return fmt.Errorf("%w: %s is not under %s (add a directory to %s)", ErrOutside, path, strings.Join(p.roots, ", "), p.setting)
}

// hidden reports whether abs is a hidden entry of a NoHidden root r.
func (p *Policy) hidden(abs, r string) bool {
	for _, h := range p.hiddenUnder {
		if h != r {
			continue
		}
		rel, err := filepath.Rel(r, abs)
		if err != nil {
			return true
		}
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			if strings.HasPrefix(part, ".") && part != "." {
				return true
			}
		}
	}
	return false
}

// localPath strips file:// and reports whether path is a local path.
func localPath(path string) (string, bool) {
	if rest, ok := strings.CutPrefix(path, "file://"); ok {
		return rest, true
	}
	if i := strings.Index(path, "://"); i > 0 && !strings.ContainsAny(path[:i], `/\`) {
		return "", false
	}
	return path, true
}

// resolve makes path absolute and clean and resolves the symbolic links
// of its longest existing prefix (the rest does not exist yet: a file a
// sink is about to write).
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// within reports whether path is dir or under it.
func within(path, dir string) bool {
	if path == dir || dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// SplitList splits a setting's value (directories separated by the
// system's list separator, ':' on Unix) into roots.
func SplitList(v string) []string {
	var out []string
	for _, d := range filepath.SplitList(v) {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}
