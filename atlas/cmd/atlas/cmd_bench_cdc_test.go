package main

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Flag values the CDC benchmark cannot run with are a usage error (exit
// status 2, the flag named), not a panic.
func TestBenchCDCRefusesImpossibleFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--batches", "0"}, "--batches must be at least 1, got 0"},
		{[]string{"--batch-size", "0"}, "--batch-size must be at least 1"},
		{[]string{"--files", "0"}, "--files must be at least 1"},
		{[]string{"--rows", "-1"}, "--rows must not be negative"},
		{[]string{"--update-fraction", "1.5"}, "--update-fraction must be between 0 and 1"},
		{[]string{"--update-window", "-3"}, "--update-window must not be negative"},
	} {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%v: panic: %v", c.args, r)
				}
			}()
			err = benchCDC(context.Background(), append([]string{"--rows", "10", "--home", t.TempDir()}, c.args...))
		}()
		var code exitCode
		if !errors.As(err, &code) || code != 2 {
			t.Errorf("%v: err = %v, want exit status 2", c.args, err)
		}
		rows := int64(10)
		files, batches, size, window, updates := 10, 20, 10_000, int64(0), 0.8
		switch c.args[0] {
		case "--batches":
			batches = 0
		case "--batch-size":
			size = 0
		case "--files":
			files = 0
		case "--rows":
			rows = -1
		case "--update-fraction":
			updates = 1.5
		case "--update-window":
			window = -3
		}
		if err := checkBenchCDCFlags(rows, files, batches, size, updates, window); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
