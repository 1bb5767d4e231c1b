package file

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sinklog"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// status is a listed file: its absolute path and modification time (ms).
type status struct {
	path    string
	modTime int64
}

// hidden reports whether a file or directory name is left out of listings,
// as Spark's InMemoryFileIndex does: names starting with "." or "_" (but
// partition directories such as "_x=1"), and files being copied.
func hidden(name string) bool {
	return (strings.HasPrefix(name, "_") && !strings.Contains(name, "=")) || strings.HasPrefix(name, ".") || strings.HasSuffix(name, "._COPYING_")
}

// listFiles lists the data files under path (a file, a directory, or a
// glob), recursively, skipping hidden names and, when filter is set, base
// names that do not match it.
func listFiles(path string, glob bool, filter string) ([]status, error) {
	roots := []string{path}
	if glob {
		var err error
		if roots, err = filepath.Glob(path); err != nil {
			return nil, fmt.Errorf("listing %s: %w", path, err)
		}
	}
	if !glob && sinklog.Exists(path) {
		return committedFiles(path, filter)
	}
	var out []status
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p != root && os.IsNotExist(err) {
					return nil // removed while listing
				}
				return err
			}
			if p != root && hidden(d.Name()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || !d.Type().IsRegular() {
				return nil
			}
			if filter != "" {
				if ok, _ := filepath.Match(filter, d.Name()); !ok {
					return nil
				}
			}
			info, err := d.Info()
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			out = append(out, status{path: p, modTime: info.ModTime().UnixMilli()})
			return nil
		})
		if err != nil {
			if os.IsNotExist(err) && glob {
				continue
			}
			return nil, fmt.Errorf("listing %s: %w", root, err)
		}
	}
	return out, nil
}

// ListFiles lists the data files of a batch read: every path may be a
// file, a directory (read recursively, hidden names left out) or a glob.
// Files are returned in name order.
func ListFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		abs, err := filepath.Abs(strings.TrimPrefix(p, "file://"))
		if err != nil {
			return nil, err
		}
		glob := strings.ContainsAny(p, "*?[")
		if !glob {
			if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
				return nil, pathNotFound(abs, err)
			} else if err != nil {
				return nil, err
			}
		}
		files, err := listFiles(abs, glob, "")
		if err != nil {
			return nil, err
		}
		if glob && len(files) == 0 {
			return nil, pathNotFound(abs, fs.ErrNotExist)
		}
		for _, f := range files {
			out = append(out, f.path)
		}
	}
	sort.Strings(out)
	return out, nil
}

// pathNotFound is Spark's PATH_NOT_FOUND for the local path p (a path or
// a glob that matches nothing).
func pathNotFound(p string, cause error) *sparkerr.Error {
	u := "file:" + filepath.ToSlash(p)
	return &sparkerr.Error{Class: "PATH_NOT_FOUND", Params: map[string]string{"path": u}, Cause: cause,
		Message: "Path does not exist: " + u + "."}
}

// fileURL is a path as the seen-files log records it (Spark's SparkPath
// urlEncoded form).
func fileURL(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

// urlPath is the local path of a logged URL.
func urlPath(u string) (string, error) {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != "file" {
		return "", fmt.Errorf("seen-files log: %q is not a file URL", u)
	}
	return filepath.FromSlash(pu.Path), nil
}

// seenFiles is Spark's SeenFilesMap: the files already taken, by path (or
// base name with fileNameOnly), with their modification times; entries
// more than maxAge older than the latest file are purged, and files that
// old are no longer considered new.
type seenFiles struct {
	maxAgeMs  int64
	nameOnly  bool
	m         map[string]int64
	latest    int64
	lastPurge int64
}

func newSeenFiles(maxAgeMs int64, nameOnly bool) *seenFiles {
	return &seenFiles{maxAgeMs: maxAgeMs, nameOnly: nameOnly, m: map[string]int64{}}
}

func (s *seenFiles) key(u string) string {
	if s.nameOnly {
		return u[strings.LastIndexByte(u, '/')+1:]
	}
	return u
}

func (s *seenFiles) add(u string, ts int64) {
	s.m[s.key(u)] = ts
	if ts > s.latest {
		s.latest = ts
	}
}

// isNew: not seen, and not older than the last purge.
func (s *seenFiles) isNew(u string, ts int64) bool {
	_, ok := s.m[s.key(u)]
	return ts >= s.lastPurge && !ok
}

func (s *seenFiles) purge() {
	s.lastPurge = s.latest - s.maxAgeMs
	for k, ts := range s.m {
		if ts < s.lastPurge {
			delete(s.m, k)
		}
	}
}

// committedFiles lists the output directory of a file sink through its
// log (_spark_metadata), as Spark's MetadataLogFileIndex: only files of
// committed batches, never those a crashed batch left behind.
func committedFiles(dir, filter string) ([]status, error) {
	es, err := sinklog.Open(dir).AllFiles()
	if err != nil {
		return nil, err
	}
	var out []status
	for _, e := range es {
		p, err := e.LocalPath()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, sinklog.Dir), err)
		}
		if filter != "" {
			if ok, _ := filepath.Match(filter, filepath.Base(p)); !ok {
				continue
			}
		}
		out = append(out, status{path: p, modTime: e.ModificationTime})
	}
	return out, nil
}
