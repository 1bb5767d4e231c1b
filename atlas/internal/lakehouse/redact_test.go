package lakehouse

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenErrorHidesSecrets: a catalog that cannot be opened (a read-only
// sqlite DSN on a file that does not exist) fails with a message that
// names the file but none of the URI's or the properties' secrets; the
// Config's String, Redacted and Redact mask them too.
func TestOpenErrorHidesSecrets(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "missing.db")
	cfg := Config{
		Type:       "sql",
		URI:        "file:" + file + "?mode=ro&password=Zq-uri-secret&_auth_pass=Zq-auth-secret",
		Warehouse:  "file://" + filepath.Join(dir, "wh"),
		Properties: map[string]string{"s3.secret-access-key": "Zq-prop-secret", "s3.region": "eu-west-1"},
	}
	secrets := []string{"Zq-uri-secret", "Zq-auth-secret", "Zq-prop-secret"}
	_, err := Open(context.Background(), cfg)
	if err == nil {
		t.Fatal("opening a read-only missing catalog succeeded")
	}
	red := cfg.Redacted()
	texts := map[string]string{
		"Open error":       err.Error(),
		"String":           cfg.String(),
		"Redacted URI":     red.URI,
		"Redacted props":   red.Properties["s3.secret-access-key"],
		"Redact free text": cfg.Redact("the driver said: bad key Zq-prop-secret for Zq-auth-secret"),
	}
	for what, s := range texts {
		for _, sec := range secrets {
			if strings.Contains(s, sec) {
				t.Errorf("%s shows the secret %s: %s", what, sec, s)
			}
		}
	}
	if !strings.Contains(err.Error(), file) || !strings.Contains(cfg.String(), "password=***") {
		t.Errorf("the redacted text lost the file: %s / %s", err, cfg.String())
	}
	if red.Properties["s3.region"] != "eu-west-1" || cfg.Properties["s3.secret-access-key"] != "Zq-prop-secret" {
		t.Errorf("Redacted changed the wrong values: %v %v", red.Properties, cfg.Properties)
	}
}
