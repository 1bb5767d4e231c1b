// Package ckpath names checkpoint locations: the one rule by which the
// engine, the Spark Connect server, the CLI and the client turn a
// checkpoint root and a query name into a location, so that all of them
// agree. It has no dependencies, so the thin client can import it.
//
// A root is a local directory (or file:// URL) or an object-store URL
// (s3://bucket/prefix, s3a://..., with optional ?query parameters). URLs
// stay URLs: a name is appended to the URL's path with "/", before its
// query, never with filepath.Join (which would turn s3://b into s3:/b).
package ckpath

import (
	"path/filepath"
	"strings"
)

// IsURL reports whether loc is an object-store URL rather than a local
// directory (file:// URLs are local).
func IsURL(loc string) bool {
	return strings.Contains(loc, "://") && !strings.HasPrefix(loc, "file://")
}

// Join names the child name under root. For a URL root the name goes at
// the end of the path, before any ?query; for a local root it is
// filepath.Join of the directory (file:// stripped) and the name.
func Join(root, name string) string {
	if !IsURL(root) {
		return filepath.Join(strings.TrimPrefix(root, "file://"), name)
	}
	base, query, hasQuery := strings.Cut(root, "?")
	loc := strings.TrimSuffix(base, "/") + "/" + name
	if hasQuery {
		loc += "?" + query
	}
	return loc
}

// QueryDir is the checkpoint location of the query named name under root:
// Join(root, Sanitize(name)).
func QueryDir(root, name string) string { return Join(root, Sanitize(name)) }

// Sanitize makes a query name one path element: '/', '\\', ' ' and ':'
// become '_'.
func Sanitize(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, name)
}
