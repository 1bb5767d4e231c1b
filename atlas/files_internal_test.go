package atlas

import (
	"path/filepath"
	"testing"
)

// TestAbsPaths: relative file paths are sent absolute (the server resolves
// paths against its own working directory); URLs and absolute paths are
// sent as given.
func TestAbsPaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	got := absPaths([]string{"in/", "/data/x.csv", "s3://bucket/in"})
	want := []string{filepath.Join(dir, "in"), "/data/x.csv", "s3://bucket/in"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("path %d: %q, want %q", i, got[i], want[i])
		}
	}
}
