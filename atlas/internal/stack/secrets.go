package stack

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// SecretEnv are the environment variables that hold secrets: the catalog
// URI (a password in a JDBC or postgres URI), the catalog properties
// (s3.secret-access-key), the AWS credentials and a client token. The
// daemon never has them in its environment: Up hands them over on the
// daemon's standard input, so /proc/<pid>/environ and every child process
// are clean.
var SecretEnv = []string{
	lakehouse.EnvCatalogURI, lakehouse.EnvCatalogProps,
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"ATLAS_CONNECT_TOKEN",
}

// envSecrets marks a daemon whose secrets come on its standard input.
const envSecrets = "ATLAS_DAEMON_SECRETS"

// TakeSecrets returns the secret variables set in this process's
// environment (SecretEnv) and removes them from it, so child processes
// never inherit them.
func TakeSecrets() map[string]string {
	out := map[string]string{}
	for _, k := range SecretEnv {
		if v, ok := os.LookupEnv(k); ok {
			if v != "" {
				out[k] = v
			}
			os.Unsetenv(k)
		}
	}
	return out
}

// daemonSecrets returns the secrets of a daemon: those Up wrote on its
// standard input (when marked so) and any left in its environment, which
// it removes.
func daemonSecrets(stdin io.Reader) (map[string]string, error) {
	secrets := TakeSecrets()
	if os.Getenv(envSecrets) != "stdin" {
		return secrets, nil
	}
	os.Unsetenv(envSecrets)
	var given map[string]string
	if err := json.NewDecoder(stdin).Decode(&given); err != nil {
		return nil, fmt.Errorf("read the secrets on standard input: %w", err)
	}
	for k, v := range given {
		secrets[k] = v
	}
	return secrets, nil
}
