package display

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
)

// EchartsVersion is the version of the npm package "echarts" whose bundle
// the charts are drawn with. The set-up step fetches exactly this version
// (see [FetchEcharts]); it is Apache-2.0 licensed and its LICENSE and NOTICE
// are kept next to the bundle.
const EchartsVersion = "6.1.0"

// EchartsIntegrity is the npm integrity (sha512, base64) of the
// echarts-[EchartsVersion] tarball, as `npm pack --json` reports it and as
// kernel/echarts.integrity pins it; [FetchEcharts] refuses any other.
const EchartsIntegrity = "sha512-q0yaFPggC9FUdsWH4blavRWFmxdrIodbkoKNAjJudAI6CA9gNPxHtV2RcZNEepZVlk4yvBYkOkbk6HIVpIyHZA=="

// EnvEchartsJS names the environment variable that, when set, is the path of
// the echarts bundle to inline instead of [EchartsPath]'s default.
const EnvEchartsJS = "ATLAS_ECHARTS_JS"

// echartsBundleRel is where the bundle sits inside the echarts directory,
// the same place as inside the npm package.
const echartsBundleRel = "dist/echarts.min.js"

// echartsFiles are the files of the npm package that FetchEcharts keeps.
var echartsFiles = []string{echartsBundleRel, "LICENSE", "NOTICE", "package.json"}

// EchartsDir returns the directory the set-up step installs echarts into:
// $ATLAS_HOME/assets/echarts, with ATLAS_HOME defaulting to $HOME/.atlas
// (the same home as the rest of Atlas's local state).
func EchartsDir() string {
	return filepath.Join(atlasHome(), "assets", "echarts")
}

// EchartsPath returns the path of the echarts bundle that charts inline:
// $ATLAS_ECHARTS_JS when set, otherwise EchartsDir()/dist/echarts.min.js.
// The file may not exist; charts then degrade to numbers and a note.
func EchartsPath() string {
	if p := os.Getenv(EnvEchartsJS); p != "" {
		return p
	}
	return filepath.Join(EchartsDir(), filepath.FromSlash(echartsBundleRel))
}

// atlasHome mirrors lakehouse.Home without importing it: display depends on
// nothing else in Atlas.
func atlasHome() string {
	if h := os.Getenv("ATLAS_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			return abs
		}
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".atlas")
	}
	return filepath.Join(os.TempDir(), "atlas")
}

// FetchEcharts installs echarts@[EchartsVersion] into dir for the kernel
// installer or an `atlas assets` command: it runs `npm pack echarts@<version>`
// in a temporary directory inside dir, checks the tarball against
// [EchartsIntegrity], and extracts dist/echarts.min.js, LICENSE, NOTICE and
// package.json, plus a VERSION file (as kernel/install.sh writes), so that
// the bundle ends up at dir/dist/echarts.min.js. Pass [EchartsDir] for the
// default location. Files are replaced only once all of them were extracted
// and checked; npm must be on PATH.
func FetchEcharts(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("display: creating echarts dir %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(dir, ".npm-pack-")
	if err != nil {
		return fmt.Errorf("display: creating npm pack dir in %s: %w", dir, err)
	}
	defer os.RemoveAll(tmp)

	spec := "echarts@" + EchartsVersion
	cmd := exec.CommandContext(ctx, "npm", "pack", spec, "--json", "--pack-destination", tmp)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(),
		"npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("display: npm pack %s: %w: %s", spec, err, strings.TrimSpace(stderr.String()))
	}
	var packed []struct {
		Filename string `json:"filename"`
		Version  string `json:"version"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &packed); err != nil || len(packed) != 1 {
		return fmt.Errorf("display: npm pack %s: unexpected output %q: %v", spec, stdout.String(), err)
	}
	if packed[0].Version != EchartsVersion {
		return fmt.Errorf("display: npm pack %s returned version %s", spec, packed[0].Version)
	}
	tgz := filepath.Join(tmp, filepath.Base(packed[0].Filename))
	if err := verifyIntegrity(tgz, EchartsIntegrity); err != nil {
		return err
	}
	return extractEchartsPackage(tgz, dir)
}

// extractEchartsPackage copies echartsFiles out of the npm tarball tgz
// (entries under "package/") into dir. It stages them in a temporary
// directory inside dir, checks package.json names EchartsVersion, and only
// then renames them into place, so a bad tarball leaves dir unchanged.
func extractEchartsPackage(tgz, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("display: creating echarts dir %s: %w", dir, err)
	}
	stage, err := os.MkdirTemp(dir, ".stage-")
	if err != nil {
		return fmt.Errorf("display: creating staging dir in %s: %w", dir, err)
	}
	defer os.RemoveAll(stage)
	if err := untarSelected(tgz, stage); err != nil {
		return err
	}
	pj, err := os.ReadFile(filepath.Join(stage, "package.json"))
	if err != nil {
		return fmt.Errorf("display: reading staged echarts package.json: %w", err)
	}
	if err := checkPackageVersion(pj); err != nil {
		return fmt.Errorf("display: echarts tarball %s: %w", tgz, err)
	}
	for _, rel := range echartsFiles {
		to := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("display: creating %s: %w", filepath.Dir(to), err)
		}
		if err := os.Rename(filepath.Join(stage, filepath.FromSlash(rel)), to); err != nil {
			return fmt.Errorf("display: installing %s: %w", to, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "VERSION"), []byte(EchartsVersion+"\n"), 0o644); err != nil {
		return fmt.Errorf("display: writing %s: %w", filepath.Join(dir, "VERSION"), err)
	}
	return nil
}

// untarSelected writes the echartsFiles entries of the gzipped tarball tgz
// into stage, failing when one is missing.
func untarSelected(tgz, stage string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return fmt.Errorf("display: opening echarts tarball: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("display: reading echarts tarball %s: %w", tgz, err)
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
			return fmt.Errorf("display: reading echarts tarball %s: %w", tgz, err)
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
		return fmt.Errorf("display: echarts tarball %s lacks %s", tgz, strings.Join(missing, ", "))
	}
	return nil
}

// verifyIntegrity checks that the file at path has the npm integrity want
// ("sha512-<base64>").
func verifyIntegrity(path, want string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("display: opening %s: %w", path, err)
	}
	defer f.Close()
	h := sha512.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("display: hashing %s: %w", path, err)
	}
	if got := "sha512-" + base64.StdEncoding.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("display: %s has integrity %s, want %s", path, got, want)
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
	if pkg.Name != "echarts" || pkg.Version != EchartsVersion {
		return fmt.Errorf("it holds %s@%s, want echarts@%s", pkg.Name, pkg.Version, EchartsVersion)
	}
	return nil
}

func writeFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("display: creating %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("display: creating %s: %w", path, err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("display: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("display: writing %s: %w", path, err)
	}
	return nil
}
