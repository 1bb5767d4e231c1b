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

func TestClaimInlineOncePerKernel(t *testing.T) {
	t.Setenv(EnvKernelTmp, "")
	if !ClaimInline() || !ClaimInline() {
		t.Fatal("outside GoNB every output must carry the bundle")
	}
	t.Setenv(EnvKernelTmp, t.TempDir())
	if !ClaimInline() {
		t.Fatal("the first output of a kernel session must carry the bundle")
	}
	if ClaimInline() || ClaimInline() {
		t.Fatal("later outputs of the same kernel session must not carry it again")
	}
	t.Setenv(EnvKernelTmp, t.TempDir()) // a restarted kernel
	if !ClaimInline() {
		t.Fatal("a new kernel session must carry the bundle again")
	}
}
