package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// envRunCLI makes the test binary run as the atlas command (see TestMain),
// so that the tests see exactly what a user sees on stdout and stderr.
const envRunCLI = "ATLAS_TEST_RUN_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(envRunCLI) == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// cliResult is what one atlas command printed and how it ended.
type cliResult struct {
	args           []string
	stdout, stderr string
	code           int
}

// atlasCLI runs the atlas command with args in a child process with env
// added to the test's environment.
func atlasCLI(t *testing.T, env []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), envRunCLI+"=1"), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("atlas %v: %v", args, err)
	}
	return cliResult{args: args, stdout: out.String(), stderr: errOut.String(), code: code}
}

// stopBroker stops the broker of home at the end of the test.
func stopBroker(t *testing.T, home string) {
	t.Cleanup(func() {
		if r := atlasCLI(t, []string{"ATLAS_HOME=" + home}, "down", "--home", home); r.code != 0 {
			t.Errorf("atlas down: %d %s", r.code, r.stderr)
		}
	})
}

// newSecret returns a value found nowhere but where the test plants it.
func newSecret(t *testing.T, tag string) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "Zq" + tag + hex.EncodeToString(b)
}

// TestSecretsNeverPrinted plants unique secrets in the catalog URI (a
// password= and an _auth_pass= parameter of the sqlite DSN; the user-info
// password of a Postgres URL) and in ATLAS_CATALOG_PROPS (an S3 secret
// key), runs up, status, status --json, a failing sql statement and a
// failing maintenance command, and greps every output and every file
// under ATLAS_HOME: no secret anywhere, while the rest of the URI (the
// catalog file, the host) is still shown.
func TestSecretsNeverPrinted(t *testing.T) {
	home := t.TempDir()
	pass, authPass, s3Key, pgPass := newSecret(t, "pw"), newSecret(t, "ap"), newSecret(t, "s3"), newSecret(t, "pg")
	secrets := []string{pass, authPass, s3Key, pgPass}
	dbFile := filepath.Join(home, "catalog", "catalog.db")
	sqliteURI := lakehouse.SQLiteURI(dbFile) + "&password=" + pass + "&_auth_pass=" + authPass
	base := []string{
		"ATLAS_HOME=" + home, "ATLAS_KAFKA_BROKERS=", "ATLAS_KAFKA_ADDR=127.0.0.1:0",
		"ATLAS_CATALOG_TYPE=", "ATLAS_WAREHOUSE=",
		"ATLAS_CATALOG_PROPS=s3.secret-access-key=" + s3Key + ",s3.access-key-id=AKIDEXAMPLE",
	}
	local := append([]string{"ATLAS_CATALOG_URI=" + sqliteURI}, base...)
	pg := append([]string{"ATLAS_CATALOG_URI=postgres://atlas:" + pgPass + "@127.0.0.1:1/lakehouse?sslmode=disable"}, base...)

	up := atlasCLI(t, local, "up", "--home", home, "--kafka-addr", "127.0.0.1:0")
	stopBroker(t, home)
	if up.code != 0 {
		t.Fatalf("atlas up: exit %d\n%s%s", up.code, up.stdout, up.stderr)
	}
	runs := []cliResult{
		up,
		atlasCLI(t, local, "status", "--home", home),
		atlasCLI(t, local, "status", "--home", home, "--json"),
		atlasCLI(t, local, "sql", "--home", home, "SELECT * FROM lakehouse.gold.nope"),
		atlasCLI(t, local, "expire", "--home", home, "lakehouse.gold.nope"),
		atlasCLI(t, pg, "status", "--home", home),
		atlasCLI(t, pg, "status", "--home", home, "--json"),
		atlasCLI(t, pg, "sql", "--home", home, "SELECT * FROM lakehouse.gold.a"),
		atlasCLI(t, pg, "up", "--home", home),
	}
	for _, r := range runs {
		for _, s := range secrets {
			if strings.Contains(r.stdout+r.stderr, s) {
				t.Errorf("atlas %v printed a secret:\nstdout:\n%s\nstderr:\n%s", r.args, r.stdout, r.stderr)
			}
		}
	}
	for _, r := range runs {
		t.Logf("atlas %v: exit %d\n%s%s", r.args, r.code, r.stdout, r.stderr)
	}
	// The redacted URI still says which catalog it is.
	if st := runs[1].stdout; !strings.Contains(st, dbFile) || !strings.Contains(st, "password=***") {
		t.Errorf("status does not show the redacted catalog URI:\n%s", st)
	}
	if st := runs[5].stdout; !strings.Contains(st, "postgres://atlas:***@127.0.0.1:1/lakehouse") {
		t.Errorf("status does not show the redacted Postgres URI:\n%s", st)
	}
	for _, i := range []int{3, 4, 7, 8} {
		if runs[i].code == 0 || runs[i].stderr == "" {
			t.Errorf("atlas %v: exit %d, stderr %q; want a failure with a message", runs[i].args, runs[i].code, runs[i].stderr)
		}
	}
	// Nothing on disk either: state, logs, catalog, broker data.
	var files int
	err := filepath.Walk(home, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s holds a secret", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 3 {
		t.Fatalf("only %d files under ATLAS_HOME; the stack did not run", files)
	}
}

// TestUpAndStatusFailOnDamagedCatalog: after pages in the middle of the
// sqlite catalog are overwritten, `atlas up` and `atlas status` exit
// non-zero naming the file and the way out, instead of listing no tables,
// and up starts no broker.
func TestUpAndStatusFailOnDamagedCatalog(t *testing.T) {
	home := t.TempDir()
	env := []string{"ATLAS_HOME=" + home, "ATLAS_KAFKA_BROKERS=", "ATLAS_CATALOG_URI=", "ATLAS_CATALOG_TYPE=",
		"ATLAS_WAREHOUSE=", "ATLAS_CATALOG_PROPS="}
	if r := atlasCLI(t, env, "up", "--home", home, "--kafka-addr", "127.0.0.1:0"); r.code != 0 {
		t.Fatalf("atlas up: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	stopBroker(t, home)
	for _, q := range []string{
		"CREATE TABLE lakehouse.gold.a (id BIGINT, name STRING)",
		"CREATE TABLE lakehouse.gold.b (id BIGINT, name STRING)",
		"CREATE TABLE lakehouse.silver.c (id BIGINT, name STRING)",
	} {
		if r := atlasCLI(t, env, "sql", "--home", home, q); r.code != 0 {
			t.Fatalf("atlas sql %q: exit %d %s", q, r.code, r.stderr)
		}
	}
	if r := atlasCLI(t, env, "status", "--home", home); r.code != 0 || !strings.Contains(r.stdout, "lakehouse.silver.c") {
		t.Fatalf("status of the sound catalog: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := atlasCLI(t, env, "down", "--home", home); r.code != 0 {
		t.Fatalf("atlas down: exit %d %s", r.code, r.stderr)
	}
	db := filepath.Join(home, "catalog", "catalog.db")
	st, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1024), st.Size()/2); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, args := range [][]string{{"up", "--home", home}, {"status", "--home", home}, {"status", "--home", home, "--json"}} {
		r := atlasCLI(t, env, args...)
		if r.code == 0 || !strings.Contains(r.stderr, db) || !strings.Contains(r.stderr, "atlas reset") {
			t.Errorf("atlas %v on a damaged catalog: exit %d, stderr %q; want a failure naming %s and atlas reset", args, r.code, r.stderr, db)
		}
	}
	// up failed before starting the broker.
	if _, _, alive, err := stack.Daemon(home); err != nil || alive {
		t.Errorf("a broker runs after up failed on the damaged catalog (%v)", err)
	}
}
