// Package netaddr classifies network addresses the way every Atlas
// listener and client needs to: on this machine only, or reachable by
// others.
package netaddr

import (
	"net"
	"strings"
)

// Loopback reports whether a host:port address names the loopback
// interface only: 127.0.0.0/8, ::1 or localhost. An empty host, 0.0.0.0,
// :: and every other address are reachable from other machines (or are
// not an address at all).
func Loopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
