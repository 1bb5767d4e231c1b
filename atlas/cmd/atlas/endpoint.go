package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	"github.com/atlas-lakehouse/atlas/atlas/internal/tlscert"
)

// endpoint tells clients how to reach the Spark Connect server; the daemon
// records it in HOME/run/connect.json for `atlas status`. It never holds
// the token, only where it is.
type endpoint struct {
	// Addr is the listen address.
	Addr string `json:"addr"`
	// URL is a connection string that reaches the server from clients
	// (sc://host:port, with use_ssl=true under TLS), without the token.
	URL string `json:"url"`
	// TLS tells whether the server serves TLS; Fingerprint is its
	// certificate's SHA-256 fingerprint.
	TLS         bool   `json:"tls,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// TokenFile is where the token is, "" without authentication.
	TokenFile string `json:"token_file,omitempty"`
	// Notes say how each kind of client passes the token.
	Notes []string `json:"notes,omitempty"`
}

// endpointOf describes the server listening on addr with cfg. An address
// that binds every interface (0.0.0.0, ::) is named by the host name,
// which clients can dial.
func endpointOf(addr string, cfg server.Config) endpoint {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
		if h, err := os.Hostname(); err == nil && h != "" {
			host = h
		}
	}
	ep := endpoint{Addr: addr, URL: "sc://" + net.JoinHostPort(host, port), TLS: cfg.TLS != nil, TokenFile: cfg.TokenFile}
	if ep.TLS {
		ep.URL += "/;use_ssl=true"
		if len(cfg.TLS.Certificates) > 0 {
			ep.Fingerprint = tlscert.Fingerprint(cfg.TLS.Certificates[0])
		}
	}
	switch {
	case cfg.NoAuth:
		ep.Notes = append(ep.Notes, "no token: every local caller is accepted")
	case !ep.TLS:
		ep.Notes = append(ep.Notes,
			fmt.Sprintf("the Atlas client and the kernel send the token in %s by themselves", cfg.TokenFile),
			"official Spark Connect clients send a token over TLS only: start with --tls (atlas up: "+server.EnvTLS+"=1) and pass sc://HOST:PORT/;token=$(cat "+cfg.TokenFile+")")
	default:
		ep.Notes = append(ep.Notes,
			fmt.Sprintf("clients pass the token: %s;token=$(cat %s) (the Atlas client on this machine reads it by itself; elsewhere set ATLAS_CONNECT_TOKEN)", ep.URL, cfg.TokenFile),
			"clients must trust the certificate: the Atlas client reads ATLAS_CONNECT_CA (and the home's generated one), PySpark GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, Go clients SSL_CERT_FILE")
	}
	return ep
}

// endpointFile is where the daemon records its endpoint.
func endpointFile(home string) string { return filepath.Join(home, "run", "connect.json") }

func writeEndpoint(home string, ep endpoint) error {
	data, err := json.MarshalIndent(ep, "", "  ")
	if err != nil {
		return err
	}
	path := endpointFile(home)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("record the Spark Connect endpoint: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("record the Spark Connect endpoint: %w", err)
	}
	return os.Rename(tmp, path)
}

// readEndpoint returns the recorded endpoint, ok false when there is none.
func readEndpoint(home string) (endpoint, bool) {
	data, err := os.ReadFile(endpointFile(home))
	if errors.Is(err, fs.ErrNotExist) || err != nil {
		return endpoint{}, false
	}
	var ep endpoint
	if json.Unmarshal(data, &ep) != nil {
		return endpoint{}, false
	}
	return ep, true
}
