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

// TestSinkPathAbsolute: a relative file sink path is sent absolute, as
// the readers' paths are; the writer's own options are left as given.
func TestSinkPathAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	opts := map[string]string{"path": "out/../escape_rel", "checkpointLocation": "/abs/ck"}
	got := sinkOptions(opts)
	if want := filepath.Join(filepath.Dir(dir), filepath.Base(dir), "escape_rel"); got["path"] != want || got["checkpointLocation"] != "/abs/ck" {
		t.Fatalf("sent %v, want path %s", got, want)
	}
	if opts["path"] != "out/../escape_rel" {
		t.Fatalf("the writer's options changed: %v", opts)
	}
	if got := sinkOptions(map[string]string{"path": "s3://b/out"}); got["path"] != "s3://b/out" {
		t.Fatalf("a URL changed: %v", got)
	}
}
