package e2e_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCellFlags: the notebook harness accepts a kernel spec whose
// environment install.sh wrote from kernel/cellflags.sh and refuses one installed before the cell flags existed,
// whose cells would build slower than kernel/cellbuild-bench.sh measures.
func TestCheckCellFlags(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	installed := func() map[string]string {
		cmd := exec.Command("bash", "-c", `. kernel/cellflags.sh && printf '%s\n%s\n' "$CELL_GOFLAGS" "$CELL_CGO_ENABLED"`)
		cmd.Dir = repo
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("cellflags.sh printed %q", out)
		}
		return map[string]string{"GOFLAGS": lines[0], "CGO_ENABLED": lines[1]}
	}
	if env := installed(); checkCellFlags(repo, env) != nil {
		t.Errorf("env %v: %v", env, checkCellFlags(repo, env))
	}
	for _, old := range []map[string]string{
		{"GOFLAGS": "'-ldflags=-s -w'"},                     // the spec before cellflags.sh
		{"GOFLAGS": "-tags=atlas_drivers '-ldflags=-s -w'"}, // ATLAS_KERNEL_DRIVERS=1 before it
		{"GOFLAGS": installed()["GOFLAGS"]},                 // tags but cgo left on
		{"GOFLAGS": "-tags=arrow_json_stdlibx", "CGO_ENABLED": "0"},
	} {
		if err := checkCellFlags(repo, old); err == nil {
			t.Errorf("env %v accepted", old)
		}
	}
}
