package atlas

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas/internal/ckpath"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// DefaultRemote is the Spark Connect endpoint a session connects to when
// neither Remote nor $ATLAS_CONNECT_ADDR nor $SPARK_REMOTE names one: the
// Atlas server `atlas up` starts.
const DefaultRemote = "sc://127.0.0.1:15002"

// EnvConnectAddr names the environment variable holding the server address
// (host:port or sc://host:port), as the server reads it.
const EnvConnectAddr = "ATLAS_CONNECT_ADDR"

// EnvSessionID names the environment variable that fixes the session id, so
// several processes (notebook cells) share one server session.
const EnvSessionID = "ATLAS_SESSION_ID"

// clientType is sent with every request, as PySpark sends
// "_SPARK_CONNECT_PYTHON", unless the connection string's user_agent
// names another.
const clientType = "atlas-go"

// Session is a connection to a Spark Connect server under one session id:
// the server keeps the session's temp views, memory tables, configuration
// and streaming queries. A Session is safe for concurrent use.
type Session struct {
	conn    *conn
	id      string
	user    string
	agent   string // user_agent, sent as client_type and User-Agent
	appName string
	remote  string
	err     error // the connection could not be set up

	planID atomic.Int64

	mu           sync.Mutex
	serverSideID string
	conf         map[string]string // set by the builder, sent once
	confSent     bool

	mergeMu sync.Mutex // MergeBuilder.Execute calls take turns on the source view

	// listeners are spark.streams' listeners and their server stream.
	listeners listenerBus
}

// SessionBuilder configures a Session, as SparkSession.builder.
type SessionBuilder struct {
	appName string
	remote  string
	conf    map[string]string
}

// Builder starts configuring a Session.
func Builder() *SessionBuilder { return &SessionBuilder{conf: map[string]string{}} }

// AppName names the application (shown in the live view's title).
func (b *SessionBuilder) AppName(name string) *SessionBuilder { b.appName = name; return b }

// Config sets a Spark configuration value in the server session.
func (b *SessionBuilder) Config(key, value string) *SessionBuilder {
	b.conf[key] = value
	return b
}

// Master is accepted for source compatibility and ignored: the server
// decides where queries run.
func (b *SessionBuilder) Master(string) *SessionBuilder { return b }

// Remote sets the Spark Connect endpoint: "sc://host:port", optionally with
// Spark's connection parameters ("sc://host:port/;session_id=...;user_id=..."),
// or a bare "host:port". The parameters are Spark's: token (sent as
// "Authorization: Bearer"; it implies TLS, as in Spark), use_ssl (TLS
// with the system's roots, $ATLAS_CONNECT_CA and the certificate `atlas
// up --tls` generated), user_id, user_agent and session_id; any other is
// refused by name. Without a token parameter the client sends the Atlas
// server's token by itself: $ATLAS_CONNECT_TOKEN, else, to a loopback
// server, the token file in the Atlas home.
func (b *SessionBuilder) Remote(addr string) *SessionBuilder { b.remote = addr; return b }

// GetOrCreate connects the session. Connecting is lazy: an unreachable
// server is reported by the first call that needs it, with the address.
func (b *SessionBuilder) GetOrCreate() *Session {
	remote := b.remote
	if remote == "" {
		remote = os.Getenv(EnvConnectAddr)
	}
	if remote == "" {
		remote = os.Getenv("SPARK_REMOTE")
	}
	if remote == "" {
		remote = DefaultRemote
	}
	s := &Session{appName: b.appName, remote: redactRemote(remote), conf: b.conf, user: os.Getenv("USER"), agent: clientType}
	s.listeners.bus = newListenerSet()
	r, err := parseConnect(remote)
	if err != nil {
		s.err = err
		return s
	}
	s.id = r.sessionID
	if s.id == "" {
		s.id = defaultSessionID()
	}
	if r.userID != "" {
		s.user = r.userID
	}
	if r.userAgent != "" {
		s.agent = r.userAgent
	}
	s.conn = newConn(r, s.agent)
	return s
}

// NewSession connects to the default server, as Builder().GetOrCreate().
func NewSession() *Session { return Builder().GetOrCreate() }

// parseRemote splits a Spark Connect connection string into the gRPC
// target and its ;key=value parameters.
func parseRemote(remote string) (string, map[string]string, error) {
	params := map[string]string{}
	if !strings.Contains(remote, "://") {
		return remote, params, nil
	}
	rest, ok := strings.CutPrefix(remote, "sc://")
	if !ok {
		return "", nil, fmt.Errorf("atlas connect: remote %q: want sc://host:port or host:port", redactRemote(remote))
	}
	host, tail, _ := strings.Cut(rest, "/")
	for _, kv := range strings.Split(strings.TrimPrefix(tail, ";"), ";") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return "", nil, fmt.Errorf("atlas connect: remote %q: parameter %q is not key=value", redactRemote(remote), kv)
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		params[k] = v
	}
	if host == "" {
		return "", nil, fmt.Errorf("atlas connect: remote %q names no host", redactRemote(remote))
	}
	if !strings.Contains(host, ":") {
		host += ":15002"
	}
	return host, params, nil
}

// sessionNamespace derives stable session ids (UUID v5).
var sessionNamespace = uuid.MustParse("6f7c1c52-2b0a-4d7e-9a51-7a71a5c0a7c1")

// defaultSessionID is $ATLAS_SESSION_ID, else, in a GoNB cell, an id
// derived from the kernel (every cell of one notebook kernel shares the
// server session, its temp views and its queries), else a new random id.
func defaultSessionID() string {
	if id := os.Getenv(EnvSessionID); id != "" {
		return id
	}
	for _, env := range []string{"GONB_JUPYTER_KERNEL_ID", "GONB_TMP_DIR"} {
		if v := os.Getenv(env); v != "" {
			return uuid.NewSHA1(sessionNamespace, []byte(env+"="+v)).String()
		}
	}
	return uuid.NewString()
}

// SessionID is the id the server knows this session by.
func (s *Session) SessionID() string { return s.id }

// AppName returns the application name given to the builder.
func (s *Session) AppName() string { return s.appName }

// Remote returns the endpoint this session talks to (a token parameter's
// value masked).
func (s *Session) Remote() string { return s.remote }

// Stop ends the session on the server, as spark.stop() does with Spark
// Connect: the server drops its temp views and memory tables and stops its
// streaming queries. To leave queries running for later cells, call Close
// instead (or nothing: a cell's process ending closes the connection).
func (s *Session) Stop() {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
		req := &pb.ReleaseSessionRequest{SessionId: s.id, UserContext: s.userContext(), ClientType: ptr(s.agent)}
		if body, err := req.MarshalVT(); err == nil {
			_ = s.conn.unary(ctx, "ReleaseSession", body, (&pb.ReleaseSessionResponse{}).UnmarshalVT)
		}
		cancel()
	}
	s.Close()
}

// Close closes this process's connection and leaves the server session,
// its views and its queries as they are.
func (s *Session) Close() {
	if s.conn != nil {
		s.conn.close()
	}
}

// CheckpointDir returns the checkpoint location of a query name, as the
// server names it: under the server's spark.sql.streaming.checkpointLocation
// (which the server sets to its checkpoint root, $ATLAS_CHECKPOINT_ROOT or
// its $ATLAS_HOME/checkpoints, unless this session set it), so that the
// notebooks and `atlas run` use one checkpoint for one query name. A URL
// root (s3://bucket/prefix) gives a URL. When the server cannot be asked it
// returns "": a query with a QueryName and an empty checkpointLocation
// still gets the server's location for its name.
func (s *Session) CheckpointDir(name string) string {
	root, err := s.Conf().Get("spark.sql.streaming.checkpointLocation", "")
	if err != nil || root == "" {
		return ""
	}
	return ckpath.QueryDir(root, name)
}

func (s *Session) userContext() *pb.UserContext {
	return &pb.UserContext{UserId: s.user, UserName: s.user}
}

func (s *Session) nextPlanID() int64 { return s.planID.Add(1) }

func ptr[T any](v T) *T { return &v }
