package echartsfetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/echartsjs"
)

// Integrity is the npm integrity (sha512, base64) of the
// echarts-[echartsjs.Version] tarball, as `npm pack --json` reports it and as
// kernel/echarts.integrity pins it; [Fetch] refuses any other.
const Integrity = "sha512-q0yaFPggC9FUdsWH4blavRWFmxdrIodbkoKNAjJudAI6CA9gNPxHtV2RcZNEepZVlk4yvBYkOkbk6HIVpIyHZA=="

// echartsFiles are the files of the npm package that Fetch keeps.
var echartsFiles = []string{echartsjs.BundleRel, "LICENSE", "NOTICE", "package.json"}

// Fetch installs echarts@[echartsjs.Version] into dir for the kernel
// installer or an `atlas assets` command: it runs `npm pack echarts@<version>`
// in a temporary directory inside dir, checks the tarball against
// [Integrity], and extracts dist/echarts.min.js, LICENSE, NOTICE and
// package.json, plus a VERSION file (as kernel/install.sh writes), so that
// the bundle ends up at dir/dist/echarts.min.js. Pass echartsjs.Dir() for the
// default location. Files are replaced only once all of them were extracted
// and checked; npm must be on PATH.
func Fetch(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("echarts: creating echarts dir %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(dir, ".npm-pack-")
	if err != nil {
		return fmt.Errorf("echarts: creating npm pack dir in %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp)

	spec := "echarts@" + echartsjs.Version
	cmd := exec.CommandContext(ctx, "npm", "pack", spec, "--json", "--pack-destination", tmp)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(),
		"npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("echarts: npm pack %s: %w: %s", spec, err, strings.TrimSpace(stderr.String()))
	}
	var packed []struct {
		Filename string `json:"filename"`
		Version  string `json:"version"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &packed); err != nil || len(packed) != 1 {
		return fmt.Errorf("echarts: npm pack %s: unexpected output %q: %v", spec, stdout.String(), err)
	}
	if packed[0].Version != echartsjs.Version {
		return fmt.Errorf("echarts: npm pack %s returned version %s", spec, packed[0].Version)
	}
	tgz := filepath.Join(tmp, filepath.Base(packed[0].Filename))
	if err := verifyIntegrity(tgz, Integrity); err != nil {
		return err
	}
	return extractEchartsPackage(tgz, dir)
}

// extractEchartsPackage copies echartsFiles out of the npm tarball tgz
// (entries under "package/") into dir. It stages them in a temporary
// directory inside dir, checks package.json names echartsjs.Version, and only
// then renames them into place, so a bad tarball leaves dir unchanged.
func extractEchartsPackage(tgz, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("echarts: creating echarts dir %s: %w", dir, err)
	}
	stage, err := os.MkdirTemp(dir, ".stage-")
	if err != nil {
		return fmt.Errorf("echarts: creating staging dir in %s: %w", dir, err)
	}
	defer os.RemoveAll(stage)
	if err := untarSelected(tgz, stage); err != nil {
		return err
	}
	pj, err := os.ReadFile(filepath.Join(stage, "package.json"))
	if err != nil {
		return fmt.Errorf("echarts: reading staged echarts package.json: %w", err)
	}
	if err := checkPackageVersion(pj); err != nil {
		return fmt.Errorf("echarts: echarts tarball %s: %w", tgz, err)
	}
	for _, rel := range echartsFiles {
		to := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("echarts: creating %s: %w", filepath.Dir(to), err)
		}
		if err := os.Rename(filepath.Join(stage, filepath.FromSlash(rel)), to); err != nil {
			return fmt.Errorf("echarts: installing %s: %w", to, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "VERSION"), []byte(echartsjs.Version+"\n"), 0o644); err != nil {
		return fmt.Errorf("echarts: writing %s: %w", filepath.Join(dir, "VERSION"), err)
	}
	return nil
}

// untarSelected writes the echartsFiles entries of the gzipped tarball tgz
// into stage, failing when one is missing.
func untarSelected(tgz, stage string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return fmt.Errorf("echarts: opening echarts tarball: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("echarts: reading echarts tarball %s: %w", tgz, err)
	}
	want := make(map[string]bool, len(echartsFiles))
	for _, name := range echartsFiles {
		want["package/"+name] = true
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("echarts: reading echarts tarball %s: %w", tgz, err)
		}
		if !want[h.Name] || h.Typeflag != tar.TypeReg {
			continue
		}
		rel := strings.TrimPrefix(h.Name, "package/")
		if err := writeFile(filepath.Join(stage, filepath.FromSlash(rel)), tr); err != nil {
			return err
		}
		delete(want, h.Name)
	}
	if len(want) > 0 {
		var missing []string
		for _, name := range echartsFiles {
			if want["package/"+name] {
				missing = append(missing, name)
			}
		}
		return fmt.Errorf("echarts: echarts tarball %s lacks %s", tgz, strings.Join(missing, ", "))
	}
	return nil
}

// verifyIntegrity checks that the file at path has the npm integrity want
// ("sha512-<base64>").
func verifyIntegrity(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("echarts: opening %s: %w", path, err)
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("echarts: hashing %s: %w", path, err)
	}
	if got := "sha512-" + base64.StdEncoding.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("echarts: %s has integrity %s, want %s", path, got, want)
	}
	return nil
}

func checkPackageVersion(packageJSON []byte) error {
	var pkg struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if err := json.Unmarshal(packageJSON, &pkg); err != nil {
		return fmt.Errorf("parsing package.json: %w", err)
	}
	if pkg.Name != "echarts" || pkg.Version != echartsjs.Version {
		return fmt.Errorf("it holds %s@%s, want echarts@%s", pkg.Name, pkg.Version, echartsjs.Version)
	}
	return nil
}

func writeFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("echarts: creating %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("echarts: creating %s: %w", path, err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("echarts: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("echarts: writing %s: %w", path, err)
	}
	return nil
}
