package stack

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/netaddr"
)

// Environment variables that configure the stack.
const (
	// EnvKafkaAddr is the address the embedded broker listens on.
	// Default [DefaultAddr].
	EnvKafkaAddr = "ATLAS_KAFKA_ADDR"
	// EnvKafkaBrokers is the comma-separated seed broker list clients use.
	// Default: the embedded listen address. When it names any other
	// cluster, the stack starts no broker (see [Up]).
	EnvKafkaBrokers = "ATLAS_KAFKA_BROKERS"
	// EnvKafkaPartitions is the partition count of auto-created topics.
	// Default [DefaultPartitions].
	EnvKafkaPartitions = "ATLAS_KAFKA_PARTITIONS"
	// EnvKafkaAllowRemote=1 lets the embedded broker listen on an address
	// other machines reach. The broker has no authentication and no TLS:
	// anyone who reaches it reads and writes every topic.
	EnvKafkaAllowRemote = "ATLAS_KAFKA_ALLOW_REMOTE"
)

// DefaultAddr is the loopback address the embedded broker listens on.
const DefaultAddr = "127.0.0.1:9092"

// DefaultPartitions is the partition count of topics the embedded broker
// creates automatically.
const DefaultPartitions = 3

// DefaultStartTimeout bounds how long [Up] waits for a new daemon to answer.
const DefaultStartTimeout = 20 * time.Second

// DefaultStopTimeout bounds how long [Down] waits for the daemon to exit.
const DefaultStopTimeout = 10 * time.Second

// Options configure [Up] and [EnsureUp]. The zero value means: the
// environment, else the defaults.
type Options struct {
	// Home is the Atlas home directory. Default lakehouse.Home().
	Home string
	// Addr is the broker listen address, host:port. Port 0 picks a free
	// port. Default $ATLAS_KAFKA_ADDR, else [DefaultAddr].
	Addr string
	// Partitions is the partition count of auto-created topics. Default
	// $ATLAS_KAFKA_PARTITIONS, else [DefaultPartitions].
	Partitions int
	// Executable is the program started as the daemon with the arguments
	// "broker-daemon --home ... --addr ... --partitions ...". Default
	// os.Executable(): any program importing this package can serve as
	// the daemon (see [DaemonArg]).
	Executable string
	// OwnDaemon tells that Executable runs the daemon itself, through its
	// own [DaemonArg] subcommand calling [DaemonMain] with its services
	// (the atlas CLI, which adds the Spark Connect server); this package's
	// init then leaves the child to it. Default false: the child runs a
	// broker-only daemon from this package's init.
	OwnDaemon bool
	// StartTimeout bounds the wait for a new daemon. Default
	// [DefaultStartTimeout].
	StartTimeout time.Duration
	// Catalog is the Iceberg catalog to initialise. Default
	// lakehouse.ConfigFromEnv(Home).
	Catalog *lakehouse.Config
}

// withDefaults fills the zero fields of o from the environment and the
// package defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Home == "" {
		o.Home = lakehouse.Home()
	}
	if abs, err := filepath.Abs(o.Home); err == nil {
		o.Home = abs
	}
	if o.Addr == "" {
		o.Addr = ListenAddr()
	}
	if _, _, err := net.SplitHostPort(o.Addr); err != nil {
		return o, fmt.Errorf("stack: broker listen address %q is not host:port: %w", o.Addr, err)
	}
	if err := checkBrokerExposure(o.Addr); err != nil {
		return o, err
	}
	if o.Partitions == 0 {
		if s := os.Getenv(EnvKafkaPartitions); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				return o, fmt.Errorf("stack: %s=%q is not an integer: %w", EnvKafkaPartitions, s, err)
			}
			o.Partitions = n
		}
	}
	if o.Partitions == 0 {
		o.Partitions = DefaultPartitions
	}
	if o.Partitions < 0 {
		return o, fmt.Errorf("stack: partitions must be positive, got %d", o.Partitions)
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.Catalog == nil {
		c := lakehouse.ConfigFromEnv(o.Home)
		o.Catalog = &c
	}
	return o, nil
}

// checkBrokerExposure refuses to run the embedded broker, which has no
// authentication, on an address other machines reach, unless
// $ATLAS_KAFKA_ALLOW_REMOTE=1 says so. A cluster of its own
// ($ATLAS_KAFKA_BROKERS) starts no embedded broker and is not checked.
func checkBrokerExposure(addr string) error {
	if netaddr.Loopback(addr) || External(addr) || os.Getenv(EnvKafkaAllowRemote) == "1" {
		return nil
	}
	return fmt.Errorf("stack: refusing to run the embedded Kafka broker on %s, which other machines reach: it has no authentication, so anyone there could read and write every topic; listen on 127.0.0.1 (unset %s), set %s=1 on a trusted network, or point %s at a secured cluster", addr, EnvKafkaAddr, EnvKafkaAllowRemote, EnvKafkaBrokers)
}

// ListenAddr returns the address the embedded broker listens on:
// $ATLAS_KAFKA_ADDR, else [DefaultAddr].
func ListenAddr() string {
	if a := strings.TrimSpace(os.Getenv(EnvKafkaAddr)); a != "" {
		return a
	}
	return DefaultAddr
}

// Brokers returns the seed brokers Kafka clients should use:
// $ATLAS_KAFKA_BROKERS split on commas; else the address recorded by the
// running daemon of lakehouse.Home() (so that `atlas up --kafka-addr X`
// needs no further setting); else the embedded listen address
// ([ListenAddr]).
func Brokers() []string { return BrokersOf(lakehouse.Home()) }

// BrokersOf is [Brokers] for the stack whose home is home.
func BrokersOf(home string) []string {
	if bs := envBrokers(); len(bs) > 0 {
		return bs
	}
	if st, ok, err := readState(pathsOf(home)); err == nil && ok && st.Addr != "" && processAlive(st.PID) {
		return []string{st.Addr}
	}
	return []string{ListenAddr()}
}

// envBrokers returns $ATLAS_KAFKA_BROKERS split on commas.
func envBrokers() []string {
	var bs []string
	for _, b := range strings.Split(os.Getenv(EnvKafkaBrokers), ",") {
		if b = strings.TrimSpace(b); b != "" {
			bs = append(bs, b)
		}
	}
	return bs
}

// External reports whether $ATLAS_KAFKA_BROKERS names a cluster other than
// the embedded broker listening on addr. An external cluster is never
// started or stopped by this package.
func External(addr string) bool {
	bs := envBrokers()
	if len(bs) == 0 {
		return false
	}
	want := normalizeAddr(addr)
	for _, b := range bs {
		if normalizeAddr(b) == want {
			return false
		}
	}
	return true
}

// normalizeAddr spells the loopback host one way so that localhost:9092 and
// 127.0.0.1:9092 compare equal.
func normalizeAddr(a string) string {
	h, p, err := net.SplitHostPort(a)
	if err != nil {
		return a
	}
	if h == "localhost" || h == "" || h == "::1" {
		h = "127.0.0.1"
	}
	return net.JoinHostPort(h, p)
}

// paths are the files of one home directory the stack uses.
type paths struct {
	home, dataDir, runDir, pidFile, stateFile, logDir, logFile string
}

func pathsOf(home string) paths {
	run := filepath.Join(home, "run")
	logs := filepath.Join(home, "logs")
	return paths{
		home:      home,
		dataDir:   filepath.Join(home, "broker"),
		runDir:    run,
		pidFile:   filepath.Join(run, "broker.pid"),
		stateFile: filepath.Join(run, "broker.json"),
		logDir:    logs,
		logFile:   filepath.Join(logs, "broker.log"),
	}
}
