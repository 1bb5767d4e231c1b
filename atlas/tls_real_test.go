package atlas_test

import (
	"context"
	"crypto/tls"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/tlscert"
)

// TestTokenParameterOverTLS: sc://host:port/;token=... reaches a TLS
// server whose certificate the client trusts through $ATLAS_CONNECT_CA,
// sending the token as a Bearer header; the same server refuses a
// plaintext client, and a client that does not trust the certificate
// fails.
func TestTokenParameterOverTLS(t *testing.T) {
	const token = "tls-test-token-0123456789abcdef"
	dir := t.TempDir()
	cert, err := tlscert.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", NoResume: true, Conf: map[string]string{engine.ConfHome: t.TempDir()},
		Tokens: map[string]string{server.OwnerPrincipal: token}, TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	t.Setenv(atlas.EnvConnectToken, "")
	ctx := context.Background()
	count := func(remote string) (int64, error) {
		spark := atlas.Builder().Remote(remote).GetOrCreate()
		defer spark.Close()
		df, err := spark.SQL("SELECT 1 AS a UNION ALL SELECT 2 AS a")
		if err != nil {
			return 0, err
		}
		return df.Count(ctx)
	}

	t.Setenv(atlas.EnvConnectCA, "")
	if _, err := count("sc://" + srv.Addr() + "/;token=" + token); err == nil ||
		!strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), atlas.EnvConnectCA) {
		t.Fatalf("a client that does not trust the certificate: %v; want the certificate error and %s", err, atlas.EnvConnectCA)
	}
	t.Setenv(atlas.EnvConnectCA, filepath.Join(dir, tlscert.CertFile))
	if n, err := count("sc://" + srv.Addr() + "/;token=" + token); err != nil || n != 2 {
		t.Fatalf("token over TLS: %d rows, %v; want 2", n, err)
	}
	if _, err := count("sc://" + srv.Addr() + "/;use_ssl=true;token=wrong-token-0123456789"); err == nil || !strings.Contains(err.Error(), "token is not valid") {
		t.Fatalf("a wrong token over TLS: %v", err)
	}
	t.Setenv(atlas.EnvConnectToken, token)
	if _, err := count("sc://" + srv.Addr()); err == nil || !strings.Contains(err.Error(), "use_ssl=true") {
		t.Fatalf("a plaintext client of the TLS server: %v; want the advice to use use_ssl=true", err)
	}
}

// TestTLSClientOfAPlaintextServer: use_ssl=true against a server without
// TLS says so, rather than that the server went away.
func TestTLSClientOfAPlaintextServer(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", NoResume: true, Tokens: testTokens, Conf: map[string]string{engine.ConfHome: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	spark := atlas.Builder().Remote("sc://" + srv.Addr() + "/;use_ssl=true").GetOrCreate()
	defer spark.Close()
	_, err = spark.SQL("SELECT 1 AS a")
	if err == nil || !strings.Contains(err.Error(), "does not speak TLS") || strings.Contains(err.Error(), "stopped or was killed") {
		t.Fatalf("a TLS client of a plaintext server: %v", err)
	}
}
