package stack

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

// BrokerOptions configure an in-process broker made by [NewBroker].
type BrokerOptions struct {
	// Addr is the listen address, host:port. Default "127.0.0.1:0", a free
	// loopback port. Clients are told the address the listener got, so a
	// wildcard host (0.0.0.0) is advertised as such: prefer a concrete host.
	Addr string
	// DataDir persists topics, records, offsets and groups there and
	// reloads them on start. Empty keeps everything in memory. A data
	// directory is locked: a second broker on it fails to start.
	DataDir string
	// SyncWrites fsyncs every produced batch (only with DataDir). Without
	// it, data reaches the disk on segment roll and on Close.
	SyncWrites bool
	// Partitions is the partition count of auto-created topics and of
	// CreateTopics requests asking for -1. Default [DefaultPartitions].
	Partitions int
	// Log receives the broker's warnings and errors. Default: discarded.
	Log io.Writer
	// LogLevel is the most verbose level written to Log. Default
	// kfake.LogLevelWarn.
	LogLevel kfake.LogLevel
}

// Broker is a single-node Kafka-protocol broker running in this process
// (franz-go's kfake), with topic auto-creation on. It serves until Close.
type Broker struct {
	cluster *kfake.Cluster
	addr    string
	lock    *os.File
	saver   *topicSaver // nil without a data directory

	closeOnce sync.Once
}

// NewBroker starts a broker listening on opts.Addr. It returns once the
// listener is bound and, with a DataDir, persisted state is loaded.
func NewBroker(opts BrokerOptions) (*Broker, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Partitions <= 0 {
		opts.Partitions = DefaultPartitions
	}
	if opts.LogLevel == kfake.LogLevelNone {
		opts.LogLevel = kfake.LogLevelWarn
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, &AddrInUseError{Addr: opts.Addr, Err: err}
		}
		return nil, fmt.Errorf("stack: broker listen on %s: %w", opts.Addr, err)
	}
	b := &Broker{addr: ln.Addr().String()}
	kopts := []kfake.Opt{
		// One broker; the listener is already bound, hand it over.
		kfake.Ports(0),
		kfake.ListenFn(func(string, string) (net.Listener, error) { return ln, nil }),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(opts.Partitions),
		kfake.ClusterID("atlas"),
	}
	if opts.Log != nil {
		kopts = append(kopts, kfake.WithLogger(kfake.BasicLogger(opts.Log, opts.LogLevel)))
	}
	if opts.DataDir != "" {
		lock, err := lockDataDir(opts.DataDir)
		if err != nil {
			ln.Close()
			return nil, err
		}
		b.lock = lock
		kopts = append(kopts, kfake.DataDir(opts.DataDir))
		if opts.SyncWrites {
			kopts = append(kopts, kfake.SyncWrites())
		}
	}
	c, err := kfake.NewCluster(kopts...)
	if err != nil {
		ln.Close()
		b.unlock()
		return nil, fmt.Errorf("stack: start broker on %s (data dir %q): %w", b.addr, opts.DataDir, err)
	}
	b.cluster = c
	if opts.DataDir != "" {
		b.saver = startTopicSaver(c)
	}
	return b, nil
}

// Addr returns the host:port the broker listens on, for clients' seed list.
func (b *Broker) Addr() string { return b.addr }

// Cluster returns the underlying kfake cluster, for tests that inject
// faults or inspect partitions.
func (b *Broker) Cluster() *kfake.Cluster { return b.cluster }

// Close stops the broker: it stops accepting connections, writes all state
// to the data directory (when there is one) and releases it. Close is safe
// to call more than once.
func (b *Broker) Close() {
	b.closeOnce.Do(func() {
		if b.saver != nil {
			b.saver.close()
		}
		b.cluster.Close()
		b.unlock()
	})
}

func (b *Broker) unlock() {
	if b.lock != nil {
		syscall.Flock(int(b.lock.Fd()), syscall.LOCK_UN)
		b.lock.Close()
		b.lock = nil
	}
}

// lockFileName is the lock file kept inside a broker data directory.
const lockFileName = ".atlas-broker.lock"

// lockDataDir takes an exclusive advisory lock on dir, so that two brokers
// never write the same data directory. The lock file holds the owner's pid.
func lockDataDir(dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("stack: create broker data dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("stack: open broker data dir lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		owner, _ := os.ReadFile(path)
		f.Close()
		return nil, fmt.Errorf("stack: broker data dir %s is in use by another broker (pid %s): %w",
			dir, strings.TrimSpace(string(owner)), err)
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// AddrInUseError reports that the broker's listen address is taken by
// another process.
type AddrInUseError struct {
	Addr string // the address that could not be bound
	Err  error  // the listen error
}

func (e *AddrInUseError) Error() string {
	return fmt.Sprintf("stack: cannot listen on %s: the port is in use by another process; "+
		"pick another address with --kafka-addr or %s (for example 127.0.0.1:19092)", e.Addr, EnvKafkaAddr)
}

func (e *AddrInUseError) Unwrap() error { return e.Err }
