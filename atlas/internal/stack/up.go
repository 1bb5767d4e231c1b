package stack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Up starts the stack of opts.Home unless it already runs: the broker
// daemon, detached from the caller (own session, output to
// Home/logs/broker.log) so it outlives the calling process, and the
// catalog with its namespaces bronze, silver and gold. It waits until the
// broker answers a metadata request and returns the stack's [Info]:
// Info.Started tells whether this call started the daemon, Info.StalePID
// whether it cleaned up after a dead one.
//
// When ATLAS_KAFKA_BROKERS names an external cluster (see [External]), no
// broker is started: a program whose daemon runs services (OwnDaemon, the
// atlas CLI with its Spark Connect server) still gets its daemon, serving
// them against that cluster; any other program's Up starts nothing. Either
// way Up checks that the cluster answers and initialises the catalog. A listen address taken by another process yields an
// [*AddrInUseError]. An embedded sqlite catalog file with damaged pages
// fails with an error wrapping lakehouse.ErrCatalogDamaged, before
// anything starts.
func Up(ctx context.Context, opts Options) (Info, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return Info{}, err
	}
	// A damaged catalog file fails before anything starts.
	if err := o.Catalog.CheckIntegrity(ctx); err != nil {
		return Info{}, fmt.Errorf("stack: %w", err)
	}
	external := External(o.Addr)
	if external && !o.OwnDaemon {
		return upExternal(ctx, o)
	}
	p := pathsOf(o.Home)
	// Up calls on one home (two `atlas run` started together) take turns:
	// a later one finds the daemon an earlier one started instead of
	// racing it for the port.
	unlock, err := lockFile(ctx, filepath.Join(p.runDir, "up.lock"))
	if err != nil {
		return Info{}, err
	}
	defer unlock()
	var notes []string
	stalePID := 0
	st, ok, err := readState(p)
	if err != nil {
		return Info{}, err
	}
	started := false
	switch {
	case ok && processAlive(st.PID):
		if running := strings.Join(st.External, ","); running != strings.Join(envBrokers(), ",") && (external || running != "") {
			return Info{}, fmt.Errorf("stack: the daemon pid %d runs with %s, but %s=%q: run `atlas down` first to restart it with that Kafka",
				st.PID, daemonKafka(st), EnvKafkaBrokers, os.Getenv(EnvKafkaBrokers))
		}
		if !external && st.Addr != "" && normalizeAddr(st.Addr) != normalizeAddr(o.Addr) && !strings.HasSuffix(o.Addr, ":0") {
			notes = append(notes, fmt.Sprintf("requested address %s ignored: the broker already runs at %s; run `atlas down` first to move it", o.Addr, st.Addr))
		}
		if err := waitReady(ctx, p, st.PID, nil, o.StartTimeout); err != nil {
			return Info{}, fmt.Errorf("stack: broker pid %d is running but not ready: %w (see %s)", st.PID, err, p.logFile)
		}
	default:
		if ok {
			stalePID = st.PID
			removeState(p, st.PID)
			notes = append(notes, fmt.Sprintf("removed the stale pid file of pid %d, which is no longer running", st.PID))
		}
		if err := spawnDaemon(ctx, o, p); err != nil {
			// Another `up` may have won the race for the same home.
			if st, ok, _ := readState(p); !ok || !processAlive(st.PID) ||
				waitReady(ctx, p, st.PID, nil, o.StartTimeout) != nil {
				return Info{}, err
			}
		} else {
			started = true
		}
	}
	if err := initCatalog(ctx, *o.Catalog); err != nil {
		return Info{}, err
	}
	info, err := status(ctx, o)
	if err != nil {
		return info, err
	}
	info.Started, info.StalePID, info.Notes = started, stalePID, notes
	if !info.Reachable && external {
		return info, fmt.Errorf("stack: external Kafka (%s): %s", EnvKafkaBrokers, info.BrokerError)
	}
	if !info.Reachable {
		return info, fmt.Errorf("stack: broker pid %d at %s does not answer: %s (see %s)", info.PID, info.Addr, info.BrokerError, info.LogFile)
	}
	return info, nil
}

// EnsureUp makes sure the stack of opts.Home runs, starting it when it does
// not, exactly as [Up]; it is the call for notebooks and programs that need
// Kafka and the catalog and do not care who started them. With
// ATLAS_KAFKA_BROKERS naming an external cluster it starts nothing unless
// opts.OwnDaemon (a daemon with services, see [Up]).
func EnsureUp(ctx context.Context, opts Options) (Info, error) {
	return Up(ctx, opts)
}

// upExternal checks an external Kafka cluster and initialises the catalog.
func upExternal(ctx context.Context, o Options) (Info, error) {
	if err := initCatalog(ctx, *o.Catalog); err != nil {
		return Info{}, err
	}
	info, err := status(ctx, o)
	if err != nil {
		return info, err
	}
	if !info.Reachable {
		return info, fmt.Errorf("stack: external Kafka (%s): %s", EnvKafkaBrokers, info.BrokerError)
	}
	return info, nil
}

// daemonKafka names the Kafka a running daemon uses.
func daemonKafka(st State) string {
	if len(st.External) > 0 {
		return "the external Kafka at " + strings.Join(st.External, ",")
	}
	return "its embedded broker at " + st.Addr
}

// spawnDaemon starts the daemon detached and waits until it answers.
func spawnDaemon(ctx context.Context, o Options, p paths) error {
	if !External(o.Addr) {
		if err := checkAddrFree(o.Addr); err != nil {
			return err
		}
	}
	exe := o.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("stack: find the program to run as broker daemon: %w", err)
		}
	}
	for _, d := range []string{p.logDir, p.runDir, p.dataDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("stack: create %s: %w", d, err)
		}
	}
	logf, err := openLog(p.logFile)
	if err != nil {
		return err
	}
	defer logf.Close()
	logStart, _ := logf.Seek(0, io.SeekEnd)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return fmt.Errorf("stack: open %s: %w", os.DevNull, err)
	}
	defer devnull.Close()

	cmd := exec.Command(exe, DaemonArg,
		"--home", o.Home, "--addr", o.Addr,
		"--partitions", strconv.Itoa(o.Partitions), "--log-file", p.logFile)
	cmd.Dir = o.Home
	env, secrets := daemonEnv(o.OwnDaemon)
	cmd.Env = env
	// Own session and no inherited pipes: the daemon survives the
	// terminal, and a notebook cell that starts it can finish.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, logf, logf
	if len(secrets) > 0 {
		data, err := json.Marshal(secrets)
		if err != nil {
			return fmt.Errorf("stack: encode the daemon's secrets: %w", err)
		}
		cmd.Env = append(cmd.Env, envSecrets+"=stdin")
		cmd.Stdin = bytes.NewReader(data)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("stack: start broker daemon %s: %w", exe, err)
	}
	exited := make(chan error, 1)
	// Reap the daemon if it dies while this process still runs.
	go func() { exited <- cmd.Wait() }()
	if err := waitReady(ctx, p, cmd.Process.Pid, exited, o.StartTimeout); err != nil {
		if !errors.Is(err, errDaemonExited) {
			cmd.Process.Signal(syscall.SIGTERM)
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == exitAddrInUse {
			return &AddrInUseError{Addr: o.Addr, Err: err}
		}
		tail := logTail(p.logFile, logStart)
		return fmt.Errorf("stack: broker daemon (pid %d, %s) failed to start: %w\n%s", cmd.Process.Pid, exe, err, tail)
	}
	return nil
}

// openLog opens the daemon's log for appending, readable by its owner
// only (mode 0600, also when an older run left it wider): it names
// queries, tables and paths.
func openLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("stack: open broker log %s: %w", path, err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, fmt.Errorf("stack: make broker log %s private: %w", path, err)
	}
	return f, nil
}

// errDaemonExited reports that the daemon exited before it was ready.
var errDaemonExited = errors.New("daemon exited")

// waitReady waits until the state file names pid and the broker at the
// recorded address (or the external brokers it records) answers, until pid exits (reported on exited, when not
// nil, else seen by polling) or until timeout.
func waitReady(ctx context.Context, p paths, pid int, exited <-chan error, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		if st, ok, err := readState(p); err == nil && ok && st.PID == pid && (st.Addr != "" || len(st.External) > 0) {
			brokers := st.External
			if len(brokers) == 0 {
				brokers = []string{st.Addr}
			}
			pctx, pcancel := context.WithTimeout(ctx, time.Second)
			lastErr = Ping(pctx, brokers)
			pcancel()
			if lastErr == nil {
				return nil
			}
		}
		if exited == nil && !processAlive(pid) {
			return fmt.Errorf("%w (pid %d)", errDaemonExited, pid)
		}
		select {
		case err := <-exited:
			return fmt.Errorf("%w: %w", errDaemonExited, err)
		case <-ctx.Done():
			if lastErr != nil {
				return fmt.Errorf("not ready after %s: %w", timeout, lastErr)
			}
			return fmt.Errorf("not ready after %s: %w", timeout, ctx.Err())
		case <-tick.C:
		}
	}
}

// checkAddrFree fails with an [*AddrInUseError] when addr cannot be bound.
func checkAddrFree(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return &AddrInUseError{Addr: addr, Err: err}
		}
		return fmt.Errorf("stack: cannot listen on %s: %w", addr, err)
	}
	return ln.Close()
}

// daemonEnv is the daemon's environment: the caller's, without GoNB's
// pipe variables (the daemon must not talk to the notebook) and without
// the secrets (SecretEnv), plus the marker that makes this package's init
// run the daemon. A daemon the executable runs itself (own: the atlas CLI,
// whose Spark Connect server opens the catalog for its sessions) gets no
// marker, and the secrets it needs are returned, to be written on its
// standard input; a broker-only daemon never opens the catalog and gets
// none.
func daemonEnv(own bool) (env []string, secrets map[string]string) {
	secrets = map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if slices.Contains(SecretEnv, k) {
			if own && v != "" {
				secrets[k] = v
			}
			continue
		}
		if strings.HasPrefix(kv, "GONB_") || k == envDaemon || k == envSecrets {
			continue
		}
		env = append(env, kv)
	}
	if own {
		return env, secrets
	}
	return append(env, envDaemon+"=1"), nil
}

// logTail returns what the log holds after offset, at most its last 2 KiB.
func logTail(path string, offset int64) string {
	data, err := os.ReadFile(path)
	if err != nil || offset > int64(len(data)) {
		return ""
	}
	data = data[offset:]
	if len(data) > 2048 {
		data = data[len(data)-2048:]
	}
	return strings.TrimSpace(string(data))
}
