package view

import (
	"testing"

	"github.com/janpfeifer/gonb/gonbui"
)

func TestDisplayOverride(t *testing.T) {
	t.Setenv(EnvDisplay, "text")
	if InNotebook() {
		t.Fatalf("ATLAS_DISPLAY=text must mean text")
	}
	if s := DetectSurface(); s.HTML() || s.Live() {
		t.Fatalf("text surface: html %v live %v", s.HTML(), s.Live())
	}
	t.Setenv(EnvDisplay, " HTML ")
	if !InNotebook() {
		t.Fatalf("ATLAS_DISPLAY=HTML must mean HTML")
	}
	s := DetectSurface()
	if !s.HTML() {
		t.Fatalf("ATLAS_DISPLAY=html surface is not HTML")
	}
	if gonbui.IsNotebook {
		t.Skip("running inside GoNB: the rest checks the non-notebook case")
	}
	// HTML asked for outside GoNB goes to stdout and cannot update in place.
	if s.Live() {
		t.Fatalf("HTML outside GoNB cannot update in place")
	}
	t.Setenv(EnvDisplay, "")
	if InNotebook() {
		t.Fatalf("outside GoNB without override InNotebook must be false")
	}
}
