package server

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/netaddr"
)

// The settings of a server that other machines reach (read by the atlas
// command, which fills Config from them).
const (
	// EnvAllowRemote=1 is the opt-in to a non-loopback listen address.
	EnvAllowRemote = "ATLAS_CONNECT_ALLOW_REMOTE"
	// EnvTLS=1 serves TLS with a self-signed certificate the server
	// generates once in $ATLAS_HOME/tls, when no certificate files are set.
	EnvTLS = "ATLAS_CONNECT_TLS"
	// EnvTLSCert and EnvTLSKey name PEM files of the certificate (chain)
	// and key to serve TLS with.
	EnvTLSCert = "ATLAS_CONNECT_TLS_CERT"
	EnvTLSKey  = "ATLAS_CONNECT_TLS_KEY"
)

// checkExposure refuses configurations that would serve other machines
// insecurely.
func (c Config) checkExposure(addr string) error {
	if netaddr.Loopback(addr) {
		return nil
	}
	switch {
	case c.NoAuth:
		return fmt.Errorf("atlas connect: refusing to serve %s without authentication: NoAuth is for a loopback address (127.0.0.1) only", addr)
	case !c.AllowRemote:
		return fmt.Errorf("atlas connect: refusing to listen on %s, which other machines reach: set %s=1 (atlas serve --allow-remote) to serve them, with TLS and the token, or listen on 127.0.0.1", addr, EnvAllowRemote)
	case c.TLS == nil:
		return fmt.Errorf("atlas connect: refusing to serve %s without TLS: set %s and %s to certificate files, or %s=1 for a self-signed certificate", addr, EnvTLSCert, EnvTLSKey, EnvTLS)
	}
	return nil
}
