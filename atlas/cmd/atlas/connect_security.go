package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	"github.com/atlas-lakehouse/atlas/atlas/internal/authtoken"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/fsroots"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/tlscert"
)

// connectSecurity are the Spark Connect server's security settings:
// flags of `atlas serve`, environment variables for the daemon `atlas up`
// starts.
type connectSecurity struct {
	allowRemote bool
	tls         bool
	certFile    string
	keyFile     string
	noAuth      bool
}

// securityFromEnv reads the settings from the environment.
func securityFromEnv() connectSecurity {
	return connectSecurity{
		allowRemote: envBool(server.EnvAllowRemote),
		tls:         envBool(server.EnvTLS),
		certFile:    os.Getenv(server.EnvTLSCert),
		keyFile:     os.Getenv(server.EnvTLSKey),
	}
}

// addFlags adds --allow-remote, --tls, --tls-cert, --tls-key and
// --no-auth to fs, defaulting to the environment's settings.
func (s *connectSecurity) addFlags(fs *flag.FlagSet) {
	env := securityFromEnv()
	fs.BoolVar(&s.allowRemote, "allow-remote", env.allowRemote, "listen on an address other machines reach (needs TLS and the token) ($"+server.EnvAllowRemote+"=1)")
	fs.BoolVar(&s.tls, "tls", env.tls, "serve TLS with a self-signed certificate generated once in HOME/tls (its SHA-256 fingerprint is printed) ($"+server.EnvTLS+"=1)")
	fs.StringVar(&s.certFile, "tls-cert", env.certFile, "serve TLS with this PEM certificate (chain) file ($"+server.EnvTLSCert+")")
	fs.StringVar(&s.keyFile, "tls-key", env.keyFile, "the PEM key file of --tls-cert ($"+server.EnvTLSKey+")")
	fs.BoolVar(&s.noAuth, "no-auth", false, "accept every local caller without a token (loopback addresses only; for tests)")
}

// apply fills cfg's authentication and TLS for the server of home
// listening on addr, and returns the lines to print about them: the TLS
// certificate's fingerprint. The token is the home's token file (created
// mode 0600 on first start and reused after, so running kernels keep
// working; delete it and restart to rotate it).
func (s connectSecurity) apply(home, addr string, cfg *server.Config) ([]string, error) {
	var notes []string
	if s.noAuth {
		cfg.NoAuth = true
	} else {
		tok, err := authtoken.LoadOrCreate(home)
		if err != nil {
			return nil, err
		}
		cfg.Tokens = map[string]string{server.OwnerPrincipal: tok}
		cfg.TokenFile = authtoken.Path(home)
	}
	cfg.AllowRemote = s.allowRemote
	cfg.Files = s.fileAccess(home, lakehouse.ConfigFromEnv(home).Warehouse)
	var cert tls.Certificate
	var err error
	switch {
	case s.certFile != "" || s.keyFile != "":
		if s.certFile == "" || s.keyFile == "" {
			return nil, fmt.Errorf("atlas connect: TLS needs both a certificate (%s) and a key (%s)", server.EnvTLSCert, server.EnvTLSKey)
		}
		if cert, err = tlscert.Load(s.certFile, s.keyFile); err != nil {
			return nil, err
		}
		notes = append(notes, fmt.Sprintf("TLS with %s, SHA-256 fingerprint %s", s.certFile, tlscert.Fingerprint(cert)))
	case s.tls || s.allowRemote:
		dir := filepath.Join(home, "tls")
		host, _, _ := net.SplitHostPort(addr)
		if cert, err = tlscert.LoadOrCreate(dir, host); err != nil {
			return nil, err
		}
		notes = append(notes, fmt.Sprintf("TLS with the self-signed certificate %s, SHA-256 fingerprint %s",
			filepath.Join(dir, tlscert.CertFile), tlscert.Fingerprint(cert)))
	default:
		return notes, nil
	}
	cfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	return notes, nil
}

// secretConf turns the secret settings taken out of the environment
// (stack.SecretEnv) into the server sessions' configuration: the catalog
// URI and properties, with the AWS credentials as the catalog's S3
// properties (unless the properties set them), which Iceberg's S3 file IO
// and the checkpoints read.
func secretConf(secrets map[string]string) map[string]string {
	conf := map[string]string{}
	if v := secrets[lakehouse.EnvCatalogURI]; v != "" {
		conf[engine.ConfCatalogURI] = v
	}
	props := lakehouse.ParseProps(secrets[lakehouse.EnvCatalogProps])
	for env, prop := range map[string]string{"AWS_ACCESS_KEY_ID": "s3.access-key-id", "AWS_SECRET_ACCESS_KEY": "s3.secret-access-key", "AWS_SESSION_TOKEN": "s3.session-token"} {
		if v := secrets[env]; v != "" && props[prop] == "" {
			props[prop] = v
		}
	}
	if len(props) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(props)) {
			parts = append(parts, k+"="+props[k])
		}
		conf[engine.ConfCatalogProps] = strings.Join(parts, ",")
	}
	return conf
}

// EnvFileRoots names the setting that lists the directories (':'
// separated) sessions may read and write besides the Atlas home and the
// warehouse.
const EnvFileRoots = "ATLAS_FILE_ROOTS"

// fileAccess is the file policy of the server of home: always the home
// and a local warehouse, plus $ATLAS_FILE_ROOTS. Without that setting, a
// loopback-only server (a laptop) also allows the user's home directory
// (not its hidden entries: ~/.ssh, ~/.aws) and the temporary directory;
// a server others reach (allowRemote) only what the setting lists. The
// token file, the TLS directory and the server's run and state
// directories are denied, and so are /proc, /sys and /dev.
func (s connectSecurity) fileAccess(home, warehouse string) *server.FileAccess {
	fa := &server.FileAccess{Roots: []string{home}}
	if w, ok := strings.CutPrefix(warehouse, "file://"); ok {
		fa.Roots = append(fa.Roots, w)
	} else if !strings.Contains(warehouse, "://") && warehouse != "" {
		fa.Roots = append(fa.Roots, warehouse)
	}
	extra := fsroots.SplitList(os.Getenv(EnvFileRoots))
	fa.Roots = append(fa.Roots, extra...)
	if len(extra) == 0 && !s.allowRemote {
		if h, err := os.UserHomeDir(); err == nil {
			fa.Roots = append(fa.Roots, h)
			fa.NoHidden = append(fa.NoHidden, h)
		}
		fa.Roots = append(fa.Roots, os.TempDir())
	}
	fa.Denied = []string{authtoken.Path(home), filepath.Join(home, "tls"), filepath.Join(home, "run"), s.keyFile}
	return fa
}

// envBool reads a 1/true setting.
func envBool(name string) bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(name)))
	return v == "1" || v == "true" || v == "yes"
}
