package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// atlasCLI runs the atlas binary with a clean ATLAS_* environment.
type atlasCLI struct {
	t    *testing.T
	bin  string
	home string
}

func (a atlasCLI) run(args ...string) (stdout, stderr string, code int) {
	a.t.Helper()
	cmd := exec.Command(a.bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ATLAS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	// The CLI's daemon also serves Spark Connect: on a free port, not 15002.
	cmd.Env = append(cmd.Env, "ATLAS_HOME="+a.home, "ATLAS_CONNECT_ADDR=127.0.0.1:0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// The daemon must not hold our pipes: Run returns only once they close.
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		a.t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			a.t.Fatalf("atlas %v: %v", args, err)
		}
	case <-time.After(30 * time.Second):
		a.t.Fatalf("atlas %v did not finish (output pipes held open?)", args)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

func (a atlasCLI) mustRun(args ...string) string {
	a.t.Helper()
	out, errOut, code := a.run(args...)
	if code != 0 {
		a.t.Fatalf("atlas %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
	}
	return out
}

func (a atlasCLI) status() (Info, int) {
	a.t.Helper()
	out, errOut, code := a.run("status", "--json")
	var info Info
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		a.t.Fatalf("status --json: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	return info, code
}

// buildAtlas builds the atlas command into a temporary directory.
func buildAtlas(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "atlas")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/atlas-lakehouse/atlas/atlas/cmd/atlas")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build atlas: %v\n%s", err, out)
	}
	return bin
}

// TestDaemonLifecycle drives the real CLI: up, up again, status, produce,
// down, up (data still there), stale pid file, port in use, down.
func TestDaemonLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the atlas binary")
	}
	ctx := context.Background()
	a := atlasCLI{t: t, bin: buildAtlas(t), home: t.TempDir()}
	addr := freeAddr(t)
	t.Cleanup(func() { a.run("down") })

	out := a.mustRun("up", "--kafka-addr", addr, "--partitions", "2")
	if !strings.Contains(out, "started broker at "+addr) {
		t.Fatalf("up output lacks the start line:\n%s", out)
	}
	st, ok, err := readState(pathsOf(a.home))
	if err != nil || !ok {
		t.Fatalf("no state after up: %v", err)
	}
	if st.Addr != addr || st.DataDir != filepath.Join(a.home, "broker") || !processAlive(st.PID) {
		t.Fatalf("state after up = %+v", st)
	}
	// The CLI's daemon serves Spark Connect too, and up says where.
	connect := st.Services["connect"]
	if connect == "" || strings.HasPrefix(connect, "error") || !strings.Contains(out, "sc://"+connect) {
		t.Fatalf("connect service after up = %q; up output:\n%s", connect, out)
	}
	if c, err := net.Dial("tcp", connect); err != nil {
		t.Fatalf("connect address %s: %v", connect, err)
	} else {
		c.Close()
	}
	for _, want := range []string{fmt.Sprintf("pid %d", st.PID), st.DataDir, filepath.Join(a.home, "logs", "broker.log"), "warehouse"} {
		if !strings.Contains(out, want) {
			t.Fatalf("up output lacks %q:\n%s", want, out)
		}
	}

	out = a.mustRun("up", "--kafka-addr", addr)
	if want := fmt.Sprintf("already running at %s (pid %d)", addr, st.PID); !strings.Contains(out, want) {
		t.Fatalf("second up output lacks %q:\n%s", want, out)
	}

	brokers := []string{addr}
	produceN(t, ctx, brokers, "events", 40, 2)
	info, code := a.status()
	if code != 0 || !info.Running || !info.Reachable || info.PID != st.PID {
		t.Fatalf("status = exit %d, %+v", code, info)
	}
	if len(info.Topics) != 1 || info.Topics[0].Name != "events" || info.Topics[0].Records != 40 ||
		!slices.Equal(info.Topics[0].EndOffsets, []int64{20, 20}) {
		t.Fatalf("status topics = %+v, want events with end offsets [20 20]", info.Topics)
	}
	var nss []string
	for _, ns := range info.Catalog.Namespaces {
		nss = append(nss, ns.Name)
	}
	if !slices.Equal(nss, []string{"bronze", "gold", "silver"}) || info.Catalog.Error != "" {
		t.Fatalf("catalog namespaces = %v (error %q), want bronze gold silver", nss, info.Catalog.Error)
	}

	out = a.mustRun("down")
	if !strings.Contains(out, fmt.Sprintf("stopped broker at %s (pid %d)", addr, st.PID)) {
		t.Fatalf("down output:\n%s", out)
	}
	if processAlive(st.PID) {
		t.Fatalf("daemon pid %d still alive after down", st.PID)
	}
	if info, code := a.status(); code != 1 || info.Running || info.Reachable {
		t.Fatalf("status after down = exit %d, %+v; want exit 1, not running", code, info)
	}
	if out := a.mustRun("down"); !strings.Contains(out, "not running") {
		t.Fatalf("down when stopped:\n%s", out)
	}

	// Data survives the restart.
	a.mustRun("up", "--kafka-addr", addr, "--partitions", "2")
	if got, want := consumeAll(t, ctx, brokers, "events", 40), expected(40, 2); !slices.Equal(got, want) {
		t.Fatalf("after down/up: got %v..., want %v...", got[:4], want[:4])
	}

	// A daemon killed outright leaves a stale pid file; records written
	// before the kill are on disk (SyncWrites).
	st, _, _ = readState(pathsOf(a.home))
	produceN(t, ctx, brokers, "crash", 10, 2)
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); processAlive(st.PID); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d alive after SIGKILL", st.PID)
		}
	}
	out = a.mustRun("up", "--kafka-addr", addr, "--partitions", "2")
	if !strings.Contains(out, fmt.Sprintf("removed the stale pid file of pid %d", st.PID)) ||
		!strings.Contains(out, "started broker at "+addr) {
		t.Fatalf("up over a stale pid file:\n%s", out)
	}
	if got, want := consumeAll(t, ctx, brokers, "crash", 10), expected(10, 2); !slices.Equal(got, want) {
		t.Fatalf("after SIGKILL and up: got %v, want %v", got, want)
	}
	if got := consumeAll(t, ctx, brokers, "events", 40); len(got) != 40 {
		t.Fatalf("after SIGKILL and up: %d records in events, want 40", len(got))
	}

	// Another home on the same port: a clear error naming the address.
	other := atlasCLI{t: t, bin: a.bin, home: t.TempDir()}
	_, errOut, code := other.run("up", "--kafka-addr", addr)
	if code == 0 || !strings.Contains(errOut, addr) || !strings.Contains(errOut, "--kafka-addr") {
		t.Fatalf("up on a used port: exit %d, stderr %q", code, errOut)
	}
	if _, ok, _ := readState(pathsOf(other.home)); ok {
		t.Fatal("failed up left a state file")
	}
	a.mustRun("down")
}

// TestEnsureUpFromAnyProgram starts the daemon from this test binary, as a
// notebook cell would: the package's init serves as the daemon.
func TestEnsureUpFromAnyProgram(t *testing.T) {
	ctx := context.Background()
	t.Setenv(EnvKafkaBrokers, "")
	home := t.TempDir()
	addr := freeAddr(t)
	opts := Options{Home: home, Addr: addr, Partitions: 4}
	t.Cleanup(func() { Down(ctx, home) })

	info, err := EnsureUp(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Started || !info.Reachable || info.Addr != addr || info.Partitions != 4 {
		t.Fatalf("EnsureUp = %+v", info)
	}
	again, err := EnsureUp(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Started || again.PID != info.PID {
		t.Fatalf("second EnsureUp = started %v pid %d, want the running pid %d", again.Started, again.PID, info.PID)
	}
	produceN(t, ctx, []string{addr}, "auto", 8, 4)
	st, err := Status(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Topics) != 1 || !slices.Equal(st.Topics[0].EndOffsets, []int64{2, 2, 2, 2}) {
		t.Fatalf("Status topics = %+v", st.Topics)
	}
	if err := Down(ctx, home); err != nil {
		t.Fatal(err)
	}
	if processAlive(info.PID) {
		t.Fatalf("pid %d alive after Down", info.PID)
	}
	if err := Down(ctx, home); err != nil {
		t.Fatalf("Down when not running: %v", err)
	}
}

// TestEnsureUpExternal starts nothing when ATLAS_KAFKA_BROKERS names
// another cluster.
func TestEnsureUpExternal(t *testing.T) {
	ctx := context.Background()
	b, err := NewBroker(BrokerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t.Setenv(EnvKafkaBrokers, b.Addr())
	home := t.TempDir()
	info, err := EnsureUp(ctx, Options{Home: home, Addr: freeAddr(t)})
	if err != nil {
		t.Fatal(err)
	}
	if !info.External || info.Started || info.PID != 0 || !info.Reachable {
		t.Fatalf("EnsureUp with external brokers = %+v", info)
	}
	if _, err := os.Stat(filepath.Join(home, "run")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("external EnsureUp created %s/run (err %v)", home, err)
	}
	if len(info.Catalog.Namespaces) != 3 {
		t.Fatalf("catalog namespaces = %+v, want bronze, gold, silver", info.Catalog.Namespaces)
	}
}
