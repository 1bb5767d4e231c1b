package fsroots

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	user := filepath.Join(base, "user")
	for _, d := range []string{filepath.Join(root, "data"), filepath.Join(user, ".ssh"), filepath.Join(user, "notebooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(root, "connect.token")
	if err := os.Symlink("/etc/shadow", filepath.Join(root, "data", "shadow-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "etc-link")); err != nil {
		t.Fatal(err)
	}
	p := New([]Root{{Dir: root}, {Dir: user, NoHidden: true}}, []string{secret}, "ATLAS_FILE_ROOTS")
	allowed := []string{
		filepath.Join(root, "data", "x.csv"),
		"file://" + filepath.Join(root, "data"),
		filepath.Join(root, "data", "*.json"),
		filepath.Join(root, "new", "dir", "out"), // not there yet: a sink's output
		filepath.Join(user, "notebooks", "a.parquet"),
		"s3://bucket/prefix", // not a local file
		"",
	}
	for _, path := range allowed {
		if err := p.Check(path); err != nil {
			t.Errorf("Check(%q) = %v, want allowed", path, err)
		}
	}
	refused := []string{
		"/etc/shadow",
		"/proc/self/environ",
		"file:///proc/1/environ",
		"/sys/kernel",
		filepath.Join(root, "..", "escape"),
		filepath.Join(root, "data", "shadow-link"),
		filepath.Join(root, "etc-link", "shadow"),
		filepath.Join(root, "etc-link", "*"),
		"/e*/shadow",
		secret,
		filepath.Join(user, ".ssh", "id_ed25519"),
		filepath.Join(base, "other"),
	}
	for _, path := range refused {
		err := p.Check(path)
		if err == nil || !errors.Is(err, ErrOutside) {
			t.Errorf("Check(%q) = %v, want refused", path, err)
			continue
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("Check(%q): %v does not name the path", path, err)
		}
	}
	if err := (*Policy)(nil).Check("/etc/shadow"); err != nil {
		t.Errorf("a nil policy refuses: %v", err)
	}
}
