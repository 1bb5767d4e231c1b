package home

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	t.Setenv(Env, "relative/home")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Dir(), filepath.Join(wd, "relative", "home"); got != want {
		t.Errorf("ATLAS_HOME=relative/home: Dir() = %q, want %q", got, want)
	}
	t.Setenv(Env, "")
	t.Setenv("HOME", "/somewhere/user")
	if got, want := Dir(), "/somewhere/user/.atlas"; got != want {
		t.Errorf("no ATLAS_HOME, HOME=/somewhere/user: Dir() = %q, want %q", got, want)
	}
}
