package echartsfetch

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/echartsjs"
)

// writeTarball writes a gzipped tar of files (name -> content) like the
// one `npm pack` produces.
func writeTarball(t *testing.T, files map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "echarts.tgz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, zw, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func npmPackage(version string) map[string]string {
	return map[string]string{
		"package/package.json":           `{"name":"echarts","version":"` + version + `"}`,
		"package/dist/echarts.min.js":    "/* bundle " + version + " */",
		"package/dist/echarts.common.js": "not wanted",
		"package/LICENSE":                "Apache License 2.0",
		"package/NOTICE":                 "Apache ECharts",
		"package/README.md":              "not wanted",
	}
}

func TestExtractEchartsPackage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "assets", "echarts")
	if err := extractEchartsPackage(writeTarball(t, npmPackage(echartsjs.Version)), dir); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		"dist/echarts.min.js": "/* bundle " + echartsjs.Version + " */",
		"LICENSE":             "Apache License 2.0",
		"NOTICE":              "Apache ECharts",
	} {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", rel, got, err, want)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != "LICENSE,NOTICE,VERSION,dist,package.json" {
		t.Errorf("echarts dir holds %s, want only the kept files (no staging dirs)", got)
	}
	dist, _ := os.ReadDir(filepath.Join(dir, "dist"))
	if len(dist) != 1 {
		t.Errorf("dist holds %d files, want only echarts.min.js", len(dist))
	}

	// A tarball of another version is refused and leaves the install alone.
	err := extractEchartsPackage(writeTarball(t, npmPackage("5.0.0")), dir)
	if err == nil || !strings.Contains(err.Error(), "5.0.0") {
		t.Fatalf("wrong version: err %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "dist", "echarts.min.js")); string(got) != "/* bundle "+echartsjs.Version+" */" {
		t.Fatalf("a refused tarball changed the installed bundle to %q", got)
	}

	// A tarball without the bundle is refused by name.
	files := npmPackage(echartsjs.Version)
	delete(files, "package/dist/echarts.min.js")
	if err := extractEchartsPackage(writeTarball(t, files), t.TempDir()); err == nil || !strings.Contains(err.Error(), "dist/echarts.min.js") {
		t.Fatalf("missing bundle: err %v", err)
	}
}

func TestVerifyIntegrity(t *testing.T) {
	path := filepath.Join(t.TempDir(), "abc")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	// SHA-512("abc") from FIPS 180-2, base64-encoded.
	const abc = "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw=="
	if err := verifyIntegrity(path, abc); err != nil {
		t.Fatal(err)
	}
	if err := verifyIntegrity(path, Integrity); err == nil {
		t.Fatal("a file that is not the echarts tarball passed the integrity check")
	}
}
