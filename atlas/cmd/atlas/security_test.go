package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	client "github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/internal/authtoken"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// TestDaemonSecurity drives `atlas up` as a user would and checks what the
// daemon promises: its token file is 0600 and survives a restart; a
// client of the home connects by itself, a wrong token gets
// UNAUTHENTICATED naming the file; /etc/shadow and /proc/self/environ are
// refused by name; the daemon's environment holds none of the secrets it
// was started with; its log is 0600 and names no session id.
func TestDaemonSecurity(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	s3Key, awsKey := newSecret(t, "s3"), newSecret(t, "aws")
	env := []string{"ATLAS_HOME=" + home, "ATLAS_KAFKA_ADDR=127.0.0.1:0", "ATLAS_CONNECT_ADDR=127.0.0.1:0", "ATLAS_KAFKA_BROKERS=",
		"ATLAS_CATALOG_URI=", "ATLAS_CATALOG_TYPE=", "ATLAS_WAREHOUSE=", "ATLAS_FILE_ROOTS=",
		"ATLAS_CATALOG_PROPS=s3.secret-access-key=" + s3Key + ",s3.access-key-id=AKIDEXAMPLE",
		"AWS_SECRET_ACCESS_KEY=" + awsKey, "AWS_ACCESS_KEY_ID=AKIDEXAMPLE"}
	t.Cleanup(func() { atlasCLI(t, env, "down", "--home", home) })
	if up := atlasCLI(t, env, "up", "--home", home); up.code != 0 {
		t.Fatalf("atlas up: exit %d\n%s%s", up.code, up.stdout, up.stderr)
	}
	info, err := stack.Status(ctx, home)
	if err != nil || !info.Running {
		t.Fatalf("status after up: %+v, %v", info, err)
	}
	tokenPath := authtoken.Path(home)
	fi, err := os.Stat(tokenPath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v, mode %v; want 0600", tokenPath, err, fi.Mode().Perm())
	}
	token, _ := os.ReadFile(tokenPath)

	environ, err := os.ReadFile(filepath.Join("/proc", itoa(info.PID), "environ"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{s3Key, awsKey} {
		if bytes.Contains(environ, []byte(secret)) {
			t.Errorf("the daemon's environment holds a secret it was started with")
		}
	}

	// A cell of this home connects by itself.
	t.Setenv("ATLAS_HOME", home)
	t.Setenv(client.EnvConnectToken, "")
	sid := uuid.NewString()
	spark := client.Builder().Remote("sc://" + info.Services["connect"] + "/;session_id=" + sid).GetOrCreate()
	defer spark.Close()
	if err := collect(ctx, spark, "SHOW NAMESPACES"); err != nil {
		t.Fatalf("a client of the home: %v", err)
	}
	for _, path := range []string{"/etc/shadow", "/proc/self/environ", tokenPath} {
		_, _, err := spark.Read().Schema("line string").CSV(path).Collect(ctx)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "allowed file roots") {
			t.Errorf("spark.read.csv(%s): %v, want a refusal naming it", path, err)
		}
	}

	// A wrong token.
	t.Setenv(client.EnvConnectToken, "not-the-token-0123456789")
	other := client.Builder().Remote("sc://" + info.Services["connect"]).GetOrCreate()
	defer other.Close()
	err = collect(ctx, other, "SHOW NAMESPACES")
	var se *client.ServerError
	if err == nil || !strings.Contains(err.Error(), tokenPath) || (errors.As(err, &se) && se.Code != client.CodeUnauthenticated) {
		t.Fatalf("a wrong token: %v, want UNAUTHENTICATED naming %s", err, tokenPath)
	}

	logFile := filepath.Join(home, "logs", "broker.log")
	fi, err = os.Stat(logFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("log %s: %v, mode %v; want 0600", logFile, err, fi.Mode().Perm())
	}
	if data, _ := os.ReadFile(logFile); bytes.Contains(data, []byte(sid)) || bytes.Contains(data, token) || !bytes.Contains(data, []byte("session s-")) {
		t.Fatalf("the log names the session id or the token, or no session tag:\n%s", data)
	}

	// A restart keeps the token: running kernels keep working.
	atlasCLI(t, env, "down", "--home", home)
	if up := atlasCLI(t, env, "up", "--home", home); up.code != 0 {
		t.Fatalf("atlas up again: exit %d\n%s%s", up.code, up.stdout, up.stderr)
	}
	if again, _ := os.ReadFile(tokenPath); !bytes.Equal(again, token) {
		t.Fatal("the token changed across a restart")
	}
}

// collect runs a query to the end.
func collect(ctx context.Context, s *client.Session, query string) error {
	df, err := s.SQLContext(ctx, query)
	if err != nil {
		return err
	}
	_, _, err = df.Collect(ctx)
	return err
}

func itoa(n int) string { return strconv.Itoa(n) }
