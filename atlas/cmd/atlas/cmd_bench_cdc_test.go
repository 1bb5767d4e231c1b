package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Flag values the CDC benchmark cannot run with are a usage error (exit
// status 2, the flag named on stderr), not a panic.
func TestBenchCDCRefusesImpossibleFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--batches", "0"}, "--batches must be at least 1, got 0"},
		{[]string{"--batch-size", "0"}, "--batch-size must be at least 1, got 0"},
		{[]string{"--files", "0"}, "--files must be at least 1, got 0"},
		{[]string{"--rows", "-1"}, "--rows must not be negative, got -1"},
		{[]string{"--update-fraction", "1.5"}, "--update-fraction must be between 0 and 1, got 1.5"},
		{[]string{"--update-window", "-3"}, "--update-window must not be negative (0: all keys), got -3"},
	} {
		stderr := captureStderr(t, func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%v: panic: %v", c.args, r)
				}
			}()
			err := benchCDC(context.Background(), append([]string{"--rows", "10", "--home", t.TempDir()}, c.args...))
			var code exitCode
			if !errors.As(err, &code) || code != 2 {
				t.Errorf("%v: err = %v, want exit status 2", c.args, err)
			}
		})
		if !strings.Contains(stderr, "atlas bench cdc: "+c.want) || !strings.Contains(stderr, "usage: atlas bench cdc") {
			t.Errorf("%v: stderr %q, want %q and the usage", c.args, stderr, c.want)
		}
	}
}

// captureStderr runs fn with os.Stderr sent to a file and returns what fn
// wrote there.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stderr
	os.Stderr = f
	defer func() { os.Stderr = saved }()
	fn()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
