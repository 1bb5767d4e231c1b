package echartsjs

import (
	"errors"
	"html"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/atlas-lakehouse/atlas/atlas/internal/home"
)

// Version is the version of the npm package "echarts" whose bundle
// the charts are drawn with. The set-up step fetches exactly this version
// (atlas/internal/echartsfetch); it is Apache-2.0 licensed and its LICENSE and NOTICE
// are kept next to the bundle.
const Version = "6.1.0"

// EnvJS names the environment variable that, when set, is the path of
// the echarts bundle to inline instead of [Path]'s default.
const EnvJS = "ATLAS_ECHARTS_JS"

// BundleRel is where the bundle sits inside the echarts directory,
// the same place as inside the npm package.
const BundleRel = "dist/echarts.min.js"

// Dir returns the directory the set-up step installs echarts into:
// $ATLAS_HOME/assets/echarts, with ATLAS_HOME defaulting to $HOME/.atlas
// (the same home as the rest of Atlas's local state).
func Dir() string {
	return filepath.Join(home.Dir(), "assets", "echarts")
}

// Path returns the path of the echarts bundle that charts inline:
// $ATLAS_ECHARTS_JS when set, otherwise Dir()/dist/echarts.min.js.
// The file may not exist; charts then degrade to numbers and a note.
func Path() string {
	if p := os.Getenv(EnvJS); p != "" {
		return p
	}
	return filepath.Join(Dir(), filepath.FromSlash(BundleRel))
}

// MissingNote tells the reader why there are no charts (no bundle at path)
// and how to get them, as a notice element (class atlas-note).
func MissingNote(path string) string {
	return `<div class="atlas-note">Charts are off: the echarts bundle (echarts ` + Version +
		`) is not at <code>` + html.EscapeString(path) + `</code>. Run <code>make kernel</code> or ` +
		`<code>atlas assets</code> to fetch it, or set <code>` + EnvJS +
		`</code> to an echarts.min.js file.</div>`
}

// Read returns the bundle at path, or nil when it cannot be read or is
// empty (charts are then off).
func Read(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}

// EnvKernelTmp is the variable GoNB sets, in every cell it runs, to a
// directory of its own that lives as long as the kernel (a restart gets a
// new one).
const EnvKernelTmp = "GONB_TMP_DIR"

// inlinedMarker is the file in the kernel's directory that says an output
// of this kernel session already carried the bundle.
const inlinedMarker = "atlas-echarts-inlined"

// ClaimInline reports whether the output about to be sent should carry the
// bundle (about 1.1 MB): true for the first caller in a kernel session,
// false for every later one, in any cell, whose outputs then draw with the
// window.atlasEcharts the first one published on the page. So a notebook
// run from the top holds the bundle once, in its first chart, instead of
// once per chart. Outside GoNB (no kernel directory) it is always true:
// each output stands alone.
func ClaimInline() bool {
	dir := os.Getenv(EnvKernelTmp)
	if dir == "" {
		return true
	}
	f, err := os.OpenFile(filepath.Join(dir, inlinedMarker), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		// Claimed before; on any other error carry the bundle rather than
		// risk a page without it.
		return !errors.Is(err, fs.ErrExist)
	}
	_ = f.Close()
	return true
}
