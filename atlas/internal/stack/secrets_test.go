package stack

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestDaemonSecretsTravelOnStdin: the daemon's environment lacks every
// secret variable; an own daemon gets them on its standard input and takes
// them out of its environment, a broker-only daemon gets none.
func TestDaemonSecretsTravelOnStdin(t *testing.T) {
	t.Setenv("ATLAS_CATALOG_PROPS", "s3.secret-access-key=Zqsecret1")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "Zqsecret2")
	t.Setenv("ATLAS_CATALOG_URI", "postgres://u:Zqsecret3@h/db")
	for _, own := range []bool{true, false} {
		env, secrets := daemonEnv(own)
		if joined := strings.Join(env, "\n"); strings.Contains(joined, "Zqsecret") {
			t.Fatalf("own=%v: the daemon's environment holds a secret", own)
		}
		if !own && len(secrets) != 0 {
			t.Fatalf("a broker-only daemon gets secrets: %v", secrets)
		}
		if own && (secrets["AWS_SECRET_ACCESS_KEY"] != "Zqsecret2" || secrets["ATLAS_CATALOG_PROPS"] != "s3.secret-access-key=Zqsecret1") {
			t.Fatalf("own daemon's secrets = %v", secrets)
		}
	}
	_, secrets := daemonEnv(true)
	data, _ := json.Marshal(secrets)
	t.Setenv(envSecrets, "stdin")
	got, err := daemonSecrets(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if got["ATLAS_CATALOG_URI"] != "postgres://u:Zqsecret3@h/db" || got["AWS_SECRET_ACCESS_KEY"] != "Zqsecret2" {
		t.Fatalf("the daemon read %v", got)
	}
	for _, k := range append(slices.Clone(SecretEnv), envSecrets) {
		if _, ok := os.LookupEnv(k); ok {
			t.Fatalf("%s is still in the environment after the daemon took its secrets", k)
		}
	}
}
