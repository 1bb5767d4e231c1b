package stack

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// DaemonArg is the first argument that makes a program run as the broker
// daemon. The atlas CLI has it as a hidden subcommand; any other program
// importing this package (a notebook cell, a test binary) also becomes the
// daemon when started by [Up] with this argument, through this package's
// init, so [EnsureUp] works from any executable.
const DaemonArg = "broker-daemon"

// envDaemon marks a process started by [Up] as the detached daemon.
const envDaemon = "ATLAS_BROKER_DAEMON"

func init() {
	if len(os.Args) > 1 && os.Args[1] == DaemonArg && os.Getenv(envDaemon) == "1" {
		os.Exit(DaemonMain(os.Args[2:], os.Stderr))
	}
}

// exitAddrInUse is the daemon's exit code when its address is taken.
const exitAddrInUse = 3

// DaemonConfig configures [RunDaemon].
type DaemonConfig struct {
	// Home is the Atlas home: data in Home/broker, state in Home/run.
	Home string
	// Addr is the listen address; port 0 picks a free port, recorded in
	// the state file.
	Addr string
	// Partitions is the partition count of auto-created topics.
	Partitions int
	// Log receives the daemon's and the broker's log lines.
	Log io.Writer
	// LogFile names the file Log writes to, for the state file; empty
	// when the log is not a file of its own.
	LogFile string
	// Services run beside the broker (the atlas CLI adds Atlas Connect).
	Services []DaemonService
	// Secrets are the secret settings (SecretEnv) handed to the services,
	// never kept in the daemon's environment.
	Secrets map[string]string
}

// DaemonMain runs the broker daemon with command-line arguments (those
// after [DaemonArg]: --home, --addr, --partitions) and the given services
// until SIGTERM or SIGINT, logging to log. It returns the process exit code.
func DaemonMain(args []string, log io.Writer, services ...DaemonService) int {
	secrets, err := daemonSecrets(os.Stdin)
	if err != nil {
		fmt.Fprintf(log, "%s atlas broker: %v\n", stamp(), err)
		return 1
	}
	fs := flag.NewFlagSet(DaemonArg, flag.ContinueOnError)
	fs.SetOutput(log)
	var cfg DaemonConfig
	fs.StringVar(&cfg.Home, "home", "", "Atlas home directory (default $ATLAS_HOME or ~/.atlas)")
	fs.StringVar(&cfg.Addr, "addr", "", "listen address host:port (default $ATLAS_KAFKA_ADDR or "+DefaultAddr+")")
	fs.IntVar(&cfg.Partitions, "partitions", 0, "partitions of auto-created topics (default $ATLAS_KAFKA_PARTITIONS or 3)")
	fs.StringVar(&cfg.LogFile, "log-file", "", "the file the log goes to, recorded in the state file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o, err := Options{Home: cfg.Home, Addr: cfg.Addr, Partitions: cfg.Partitions}.withDefaults()
	if err != nil {
		fmt.Fprintf(log, "%s atlas broker: %v\n", stamp(), err)
		return 1
	}
	cfg = DaemonConfig{Home: o.Home, Addr: o.Addr, Partitions: o.Partitions, Log: log, LogFile: cfg.LogFile, Services: services, Secrets: secrets}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := RunDaemon(ctx, cfg); err != nil {
		fmt.Fprintf(log, "%s atlas broker: %v\n", stamp(), err)
		if _, ok := errors.AsType[*AddrInUseError](err); ok {
			return exitAddrInUse
		}
		return 1
	}
	return 0
}

// RunDaemon serves the persistent broker of cfg.Home until ctx is done:
// it starts the broker on cfg.Addr with data in Home/broker (fsync on every
// write), records its pid and address in Home/run, and on cancellation
// closes the broker, which writes all state to disk, and removes the
// records. When ATLAS_KAFKA_BROKERS names an external cluster (see
// [External]) it starts no broker: it runs cfg.Services against that
// cluster and records the external addresses instead.
func RunDaemon(ctx context.Context, cfg DaemonConfig) error {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(cfg.Log, "%s atlas broker: "+format+"\n", append([]any{stamp()}, args...)...)
	}
	p := pathsOf(cfg.Home)
	st := State{PID: os.Getpid(), LogFile: cfg.LogFile}
	closeBroker := func() {}
	kafka := ""
	if External(cfg.Addr) {
		st.External = envBrokers()
		kafka = strings.Join(st.External, ",")
	} else {
		b, err := NewBroker(BrokerOptions{
			Addr:       cfg.Addr,
			DataDir:    p.dataDir,
			SyncWrites: true,
			Partitions: cfg.Partitions,
			Log:        cfg.Log,
		})
		if err != nil {
			return err
		}
		closeBroker = b.Close
		st.Addr, st.DataDir, st.Partitions = b.Addr(), p.dataDir, cfg.Partitions
		kafka = b.Addr()
	}
	pid := st.PID
	addrs, stops := startServices(ctx, cfg.Services, ServiceEnv{Home: cfg.Home, KafkaAddr: kafka, Log: cfg.Log, Secrets: cfg.Secrets}, logf)
	stopServices := func() {
		for _, stop := range stops {
			stop()
		}
	}
	st.Services = addrs
	st.StartedAt = time.Now().UTC().Truncate(time.Millisecond)
	if err := writeState(p, st); err != nil {
		stopServices()
		closeBroker()
		return err
	}
	if len(st.External) > 0 {
		logf("pid %d serving with the external Kafka at %s ($%s); no broker started", pid, kafka, EnvKafkaBrokers)
	} else {
		logf("pid %d serving Kafka at %s, data in %s, %d partitions per new topic", pid, st.Addr, p.dataDir, cfg.Partitions)
	}
	<-ctx.Done()
	logf("stopping (%v)", context.Cause(ctx))
	stopServices()
	closeBroker()
	removeState(p, pid)
	logf("stopped")
	return nil
}

func stamp() string { return time.Now().Format("2006-01-02T15:04:05.000Z07:00") }
