package atlas

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas/internal/authtoken"
	"github.com/atlas-lakehouse/atlas/atlas/internal/home"
	"github.com/atlas-lakehouse/atlas/atlas/internal/netaddr"
)

// EnvConnectToken names the environment variable holding the token the
// client sends when the connection string has no token parameter (else
// it reads the token file of the Atlas home, for a loopback server).
const EnvConnectToken = authtoken.Env

// EnvConnectCA names the environment variable holding a PEM file of
// certificate authorities the client trusts, besides the system's, when it
// connects with TLS (use_ssl=true, or a token).
const EnvConnectCA = "ATLAS_CONNECT_CA"

// generatedCert is where a server started by `atlas up --tls` without
// certificate files keeps its self-signed certificate, in the Atlas home;
// the client trusts it when it exists.
var generatedCert = filepath.Join("tls", "connect-cert.pem")

// remoteParams are the connection-string parameters the client honours,
// as Spark's connection string documents them.
var remoteParams = []string{"session_id", "token", "use_ssl", "user_agent", "user_id"}

// remote is a parsed connection string: where to connect and how.
type remote struct {
	target    string // host:port
	sessionID string
	userID    string
	userAgent string
	token     string // the Authorization bearer token, "" for none
	tls       *tls.Config
}

// parseConnect parses a Spark Connect connection string
// ("sc://host:port/;key=value;..." or a bare "host:port") and decides the
// token and TLS as Spark 4's clients do: a token parameter means TLS
// (use_ssl=false beside it is refused), use_ssl=true means TLS with the
// system roots plus $ATLAS_CONNECT_CA and the Atlas home's generated
// certificate. Without a token parameter the client sends the Atlas
// token: $ATLAS_CONNECT_TOKEN to any server (over TLS off loopback), the
// Atlas home's token file to a loopback server only, in plaintext there
// unless use_ssl is set. Other parameters are refused by name.
func parseConnect(s string) (*remote, error) {
	target, params, err := parseRemote(s)
	if err != nil {
		return nil, err
	}
	for k := range params {
		if !slices.Contains(remoteParams, k) {
			return nil, fmt.Errorf("atlas connect: remote %q: unknown parameter %q; the parameters are %s", redactRemote(s), k, strings.Join(remoteParams, ", "))
		}
	}
	r := &remote{target: target, sessionID: params["session_id"], userID: params["user_id"], userAgent: params["user_agent"]}
	if r.sessionID != "" {
		if _, err := uuid.Parse(r.sessionID); err != nil {
			return nil, fmt.Errorf("atlas connect: session_id %q in %s is not a UUID", r.sessionID, redactRemote(s))
		}
	}
	useSSL := false
	if v, ok := params["use_ssl"]; ok {
		switch strings.ToLower(v) {
		case "true":
			useSSL = true
		case "false":
		default:
			return nil, fmt.Errorf("atlas connect: remote %q: use_ssl=%q: want true or false", redactRemote(s), v)
		}
	}
	tok, explicit := params["token"]
	switch {
	case explicit && tok == "":
		return nil, fmt.Errorf("atlas connect: remote %q: token is empty", redactRemote(s))
	case explicit && params["use_ssl"] != "" && !useSSL:
		return nil, fmt.Errorf("atlas connect: remote %q: a token needs TLS (Spark's rule): drop use_ssl=false, or the token", redactRemote(s))
	case explicit:
		useSSL = true
	default:
		if tok, err = ambientToken(target); err != nil {
			return nil, err
		}
		if tok != "" && !netaddr.Loopback(target) {
			useSSL = true
		}
	}
	r.token = tok
	if useSSL {
		if r.tls, err = clientTLS(target); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// ambientToken is the token sent without a token parameter:
// $ATLAS_CONNECT_TOKEN, else, to a loopback server only, the Atlas home's
// token file.
func ambientToken(target string) (string, error) {
	if t := strings.TrimSpace(os.Getenv(authtoken.Env)); t != "" {
		return t, nil
	}
	if !netaddr.Loopback(target) {
		return "", nil
	}
	t, err := authtoken.Lookup(home.Dir())
	if err != nil {
		return "", fmt.Errorf("atlas connect: %w", err)
	}
	return t, nil
}

// clientTLS is the TLS configuration for target: the system roots, plus
// $ATLAS_CONNECT_CA and the Atlas home's generated certificate.
func clientTLS(target string) (*tls.Config, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if ca := os.Getenv(EnvConnectCA); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("atlas connect: read $%s: %w", EnvConnectCA, err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("atlas connect: $%s (%s) holds no PEM certificate", EnvConnectCA, ca)
		}
	}
	if pem, err := os.ReadFile(filepath.Join(home.Dir(), generatedCert)); err == nil {
		pool.AppendCertsFromPEM(pem)
	}
	host, _, _ := net.SplitHostPort(target)
	return &tls.Config{RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS12}, nil
}

// redactRemote hides a token parameter's value in messages.
func redactRemote(s string) string {
	host, tail, ok := strings.Cut(s, "/;")
	if !ok {
		return s
	}
	parts := strings.Split(tail, ";")
	for i, kv := range parts {
		if k, _, ok := strings.Cut(kv, "="); ok && k == "token" {
			parts[i] = "token=***"
		}
	}
	return host + "/;" + strings.Join(parts, ";")
}
