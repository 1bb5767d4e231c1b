package checkpoint

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// holderEnv makes the test binary a lease holder: it opens the checkpoint
// in the named directory, prints "held", and waits to be killed.
const holderEnv = "ATLAS_CHECKPOINT_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holderEnv); dir != "" {
		if _, err := Open(context.Background(), dir); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("held")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestLeaseExcludesSecondOpenInProcess(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	first, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, dir)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "another query of this program") {
		t.Fatalf("second Open: %v, want ErrInUse naming this program", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(ctx, dir)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	again.Close()
}

// TestLeaseHeldByKilledProcessIsFreed checks the lease names another
// process while it runs and is free once that process is SIGKILLed (a
// notebook cell killed 5 s after an interrupt), with no stale file to clean.
func TestLeaseHeldByKilledProcessIsFreed(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "held" {
		t.Fatalf("holder said %q (%v)", line, err)
	}
	_, err = Open(context.Background(), dir)
	want := fmt.Sprintf("process %d", cmd.Process.Pid)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Open while held: %v, want ErrInUse naming %s", err, want)
	}
	cmd.Process.Kill()
	cmd.Wait()
	c, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("Open after the holder was killed: %v", err)
	}
	c.Close()
}
