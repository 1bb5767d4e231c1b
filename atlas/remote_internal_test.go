package atlas

import (
	"os"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/authtoken"
	"github.com/atlas-lakehouse/atlas/atlas/internal/home"
)

// TestConnectParams: Spark's connection-string parameters are honoured and
// any other is refused by name; a token parameter means TLS (Spark's
// rule); the Atlas token from the home goes to loopback servers only.
func TestConnectParams(t *testing.T) {
	h := t.TempDir()
	t.Setenv(home.Env, h)
	t.Setenv(EnvConnectToken, "")
	if err := os.WriteFile(authtoken.Path(h), []byte("home-token-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		remote, err string
		token       string
		tls         bool
	}{
		{remote: "sc://127.0.0.1:15002", token: "home-token-0123456789abcdef"},
		{remote: "sc://localhost:15002/;use_ssl=true", token: "home-token-0123456789abcdef", tls: true},
		{remote: "sc://spark.example.com:15002", token: ""},
		{remote: "sc://spark.example.com:443/;token=abc;user_id=ana", token: "abc", tls: true},
		{remote: "sc://127.0.0.1:15002/;token=abc", token: "abc", tls: true},
		{remote: "sc://spark.example.com/;use_ssl=true", tls: true},
		{remote: "sc://h:1/;token=abc;use_ssl=false", err: "a token needs TLS"},
		{remote: "sc://h:1/;use_ssl=yes", err: `use_ssl="yes"`},
		{remote: "sc://h:1/;token=", err: "token is empty"},
		{remote: "sc://h:1/;token=secret;grpc_max_message_size=1", err: `unknown parameter "grpc_max_message_size"`},
		{remote: "sc://h:1/;session_id=nope", err: "not a UUID"},
	} {
		r, err := parseConnect(tc.remote)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.remote, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("%s: the error prints the token: %v", tc.remote, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.remote, err)
			continue
		}
		if r.token != tc.token || (r.tls != nil) != tc.tls {
			t.Errorf("%s: token %q, TLS %v; want %q, %v", tc.remote, r.token, r.tls != nil, tc.token, tc.tls)
		}
	}
	// $ATLAS_CONNECT_TOKEN goes to any server, over TLS off loopback.
	t.Setenv(EnvConnectToken, "env-token-0123456789abcdef")
	r, err := parseConnect("sc://spark.example.com:15002")
	if err != nil || r.token != "env-token-0123456789abcdef" || r.tls == nil {
		t.Fatalf("env token to a remote server: %+v, %v; want the env token over TLS", r, err)
	}
	r, err = parseConnect("sc://127.0.0.1:15002")
	if err != nil || r.token != "env-token-0123456789abcdef" || r.tls != nil {
		t.Fatalf("env token to loopback: %+v, %v; want the env token in plaintext", r, err)
	}
}

// TestRemoteMasksToken: the session's Remote and its errors never show a
// token parameter's value.
func TestRemoteMasksToken(t *testing.T) {
	s := Builder().Remote("sc://127.0.0.1:1/;token=s3cr3t-value;user_id=ana").GetOrCreate()
	defer s.Close()
	if strings.Contains(s.Remote(), "s3cr3t") || !strings.Contains(s.Remote(), "token=***") {
		t.Fatalf("Remote() = %q", s.Remote())
	}
	s = Builder().Remote("sc://127.0.0.1:1/;token=s3cr3t-value;bogus=1").GetOrCreate()
	if s.err == nil || strings.Contains(s.err.Error(), "s3cr3t") {
		t.Fatalf("error %v", s.err)
	}
}
