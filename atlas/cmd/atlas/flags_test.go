package main

import "testing"

// TestParseInterspersed: flags before, between and after positionals.
func TestParseInterspersed(t *testing.T) {
	for _, args := range [][]string{
		{"--n", "3", "t1"},
		{"t1", "--n", "3"},
		{"t1", "--n=3"},
	} {
		fs := newFlagSet("test", "")
		n := fs.Int("n", 0, "")
		pos, err := parseInterspersed(fs, args)
		if err != nil || *n != 3 || len(pos) != 1 || pos[0] != "t1" {
			t.Errorf("%v: n=%d pos=%v err=%v, want n=3 pos=[t1]", args, *n, pos, err)
		}
	}
}
