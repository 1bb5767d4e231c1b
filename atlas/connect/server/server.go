// Package server serves the Atlas engine over the Spark Connect gRPC
// protocol (spark.connect.SparkConnectService, wire-compatible with Apache
// Spark 4.0), so the official Spark Connect clients and Atlas's own client
// can run DataFrame plans, SQL and streaming queries in one long-running
// process. Sessions are keyed by user and session id; the server owns their
// temp views, memory-sink tables and streaming queries. Streaming queries
// with a durable sink (an Iceberg table, Kafka, files) outlive a restart of
// the server: it records them in its state directory and restarts them in
// their sessions, from their checkpoints, when it starts again.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// DefaultAddr is where the server listens unless configured: Spark
// Connect's port on the loopback interface.
const DefaultAddr = "127.0.0.1:15002"

// EnvAddr names the environment variable that overrides DefaultAddr.
const EnvAddr = "ATLAS_CONNECT_ADDR"

// Config configures a Server.
type Config struct {
	// Addr is the listen address; empty means $ATLAS_CONNECT_ADDR, else
	// DefaultAddr. Port 0 picks a free port (see Server.Addr).
	Addr string
	// Conf is the engine configuration every session starts with
	// (engine.ConfHome, engine.ConfKafkaBrokers, ...); sessions share one
	// lakehouse through it.
	Conf map[string]string
	// SessionTimeout closes a session no request has named for this long,
	// unless an operation or a streaming query of it runs. Zero means
	// DefaultSessionTimeout; negative, never.
	SessionTimeout time.Duration
	// Log receives one line per session opened or closed and per
	// streaming query started, stopped, resumed or not resumed; nil
	// discards them.
	Log io.Writer
	// StateDir is where the server records its streaming queries, to
	// resume them when it starts again; empty means StateDir(home), home
	// being Conf[atlas.home] or the default Atlas home.
	StateDir string
	// NoResume turns resuming off, as $ATLAS_CONNECT_RESUME=0 does: the
	// server records no query and restarts none, and keeps the records an
	// earlier run left for a later start.
	NoResume bool
	// Tokens maps each principal to the bearer token that authenticates
	// it: every call must carry one (Authorization: Bearer <token>, as
	// Spark Connect's token parameter sends it), and sessions, their
	// views and their queries belong to the principal that opened them.
	// Empty, and NoAuth unset, the server generates one random token for
	// OwnerPrincipal (see Server.Token).
	Tokens map[string]string
	// TokenFile is where the clients find the token, named in the message
	// a call without a valid one gets.
	TokenFile string
	// NoAuth serves without authentication, every caller being one
	// anonymous principal: only for an in-process server on a loopback
	// address (tests, a program embedding the engine); Start refuses it
	// on any other address.
	NoAuth bool
	// TLS, when set, serves TLS with its certificates (clients connect
	// with use_ssl=true, or a token); nil serves plaintext HTTP/2.
	TLS *tls.Config
	// AllowRemote is the opt-in to listen on an address other machines
	// reach (not loopback), as $ATLAS_CONNECT_ALLOW_REMOTE=1 and `atlas
	// serve --allow-remote` set it. Such an address also needs TLS and
	// authentication; without all three Start refuses it.
	AllowRemote bool
	// Files limits the local files sessions read and write; nil sets no
	// limit, for a server embedded in a program (the atlas command sets
	// one: see the package README, "Security").
	Files *FileAccess
}

// stateDir is the directory of the server's query records.
func (c Config) stateDir() string {
	if c.StateDir != "" {
		return c.StateDir
	}
	home := c.Conf[engine.ConfHome]
	if home == "" {
		home = lakehouse.Home()
	}
	return StateDir(home)
}

// DefaultSessionTimeout is how long an idle session lives, Spark's
// spark.connect.session.manager.defaultSessionTimeout.
const DefaultSessionTimeout = time.Hour

// ListenAddr returns the configured listen address: Addr, $ATLAS_CONNECT_ADDR or
// DefaultAddr.
func (c Config) ListenAddr() string {
	if c.Addr != "" {
		return c.Addr
	}
	if a := os.Getenv(EnvAddr); a != "" {
		return a
	}
	return DefaultAddr
}

// Server is a running Spark Connect server.
type Server struct {
	grpc *grpc.Server
	ln   net.Listener
	svc  *service
	done chan error
	// report is what the server did with the queries to resume, set
	// before svc.resumed is closed.
	report   ResumeReport
	stopOnce sync.Once
	token    string
}

// Start listens on cfg's address and serves until Stop. It returns once
// the listener is bound, so clients can connect to Addr at once.
func Start(cfg Config) (*Server, error) {
	conf, err := withEnvConf(cfg.Conf)
	if err != nil {
		return nil, err
	}
	lim, err := readLimits(conf)
	if err != nil {
		return nil, err
	}
	addr := cfg.ListenAddr()
	if err := cfg.checkExposure(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("atlas connect: listen on %s: %w (set %s to another address)", addr, err, EnvAddr)
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	timeout := cfg.SessionTimeout
	if timeout == 0 {
		timeout = DefaultSessionTimeout
	}
	noResume := cfg.NoResume || resumeDisabled()
	var store *queryStore
	if !noResume {
		store = newQueryStore(cfg.stateDir())
	}
	auth, token, err := cfg.authenticator()
	if err != nil {
		ln.Close()
		return nil, err
	}
	cfg.Conf = conf
	svc := newService(cfg.sessionConf(), lim, timeout, log, store)
	svc.owner = auth.owner()
	// Every call is authenticated first (a panic in any handler becomes
	// INTERNAL_ERROR: recover.go); then requests wait until the queries
	// the previous run left are resumed, so a client sees them among the
	// active ones; the daemon that runs the server is ready (and `atlas
	// up` returns) meanwhile.
	opts := []grpc.ServerOption{grpc.MaxRecvMsgSize(lim.maxInbound), grpc.ForceServerCodecV2(newLimitCodec(lim))}
	if cfg.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg.TLS)))
	}
	g := grpc.NewServer(append(opts,
		grpc.ChainUnaryInterceptor(svc.recoverUnary, auth.unary, func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			if err := svc.awaitResume(ctx); err != nil {
				return nil, err
			}
			return handler(ctx, req)
		}),
		grpc.ChainStreamInterceptor(svc.recoverStream, auth.stream, func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			if err := svc.awaitResume(ss.Context()); err != nil {
				return err
			}
			return handler(srv, ss)
		}))...)
	sparkpb.RegisterSparkConnectServiceServer(g, svc)
	s := &Server{grpc: g, ln: ln, svc: svc, done: make(chan error, 1), token: token}
	go func() {
		s.report = svc.resume(cfg.stateDir(), noResume)
		close(svc.resumed)
	}()
	go func() { s.done <- g.Serve(ln) }()
	return s, nil
}

// Resumed waits until the server has resumed the streaming queries its
// previous run left, and reports those it restarted and those it could
// not, with the reason.
func (s *Server) Resumed() ResumeReport {
	<-s.svc.resumed
	return s.report
}

// Token is the token the server generated for OwnerPrincipal when
// Config.Tokens was empty, else OwnerPrincipal's token from Config.Tokens;
// "" with Config.NoAuth.
func (s *Server) Token() string { return s.token }

// Addr is the address the server listens on (host:port).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Stop stops every streaming query, closes every session and the listener,
// letting calls in flight finish for up to ten seconds. The queries it
// stops keep their records: a server started on the same state directory
// resumes them. Calling Stop again does nothing.
func (s *Server) Stop() { s.stopOnce.Do(s.stop) }

func (s *Server) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.svc.close(ctx)
	stopped := make(chan struct{})
	go func() { s.grpc.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-ctx.Done():
		s.grpc.Stop()
	}
	if err := <-s.done; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		fmt.Fprintf(s.svc.log, "atlas connect: serve: %v\n", err)
	}
}
