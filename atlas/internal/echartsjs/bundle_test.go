package echartsjs

import (
	"path/filepath"
	"testing"
)

func TestPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("ATLAS_HOME", home)
	t.Setenv(EnvJS, "")
	if got, want := Path(), filepath.Join(home, "assets", "echarts", "dist", "echarts.min.js"); got != want {
		t.Errorf("Path = %s, want %s", got, want)
	}
	t.Setenv(EnvJS, "/elsewhere/echarts.js")
	if got := Path(); got != "/elsewhere/echarts.js" {
		t.Errorf("Path with %s = %s", EnvJS, got)
	}
}
