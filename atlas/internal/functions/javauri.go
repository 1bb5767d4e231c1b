package functions

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
)

// javaURI is what java.net.URI's parser (RFC 2396, with RFC 2732's IPv6
// literals) finds in a string: Spark's parse_url reads its raw parts.
// Go's net/url is far more lenient (it accepts spaces, an underscore in
// a host name, a bad escape in a fragment...), so the parser is written
// out here, following java.net.URI.Parser step by step. A field is nil
// where Java's getter returns null.
type javaURI struct {
	scheme, authority, userInfo, host, path, query, fragment *string
}

// uriSyntaxError is Java's URISyntaxException.
type uriSyntaxError struct {
	reason string
	index  int
}

func (e *uriSyntaxError) Error() string { return fmt.Sprintf("%s at index %d", e.reason, e.index) }

// Character classes of java.net.URI.
const (
	uriMark      = "-_.!~*'()"
	uriReserved  = ";/?:@&=+$,[]"
	uriPcharOnly = ":@&=+$,"
	uriUserOnly  = ";:&=+$,"
	uriRegOnly   = "$,;:@&=+"
	uriSchemeX   = "+-."
)

// uriClass is a set of ASCII characters, optionally with escapes (%hh)
// and Java's "other" characters (non-ASCII, neither space nor control).
type uriClass struct {
	chars   string
	alnum   bool
	escaped bool
}

var (
	classScheme   = uriClass{chars: uriSchemeX, alnum: true}
	classURIC     = uriClass{chars: uriReserved + uriMark, alnum: true, escaped: true}
	classPath     = uriClass{chars: uriMark + uriPcharOnly + ";/", alnum: true, escaped: true}
	classUserInfo = uriClass{chars: uriMark + uriUserOnly, alnum: true, escaped: true}
	classRegName  = uriClass{chars: uriMark + uriRegOnly, alnum: true, escaped: true}
	classServer   = uriClass{chars: uriMark + uriUserOnly + "-.:@[]", alnum: true, escaped: true}
	classServerPc = uriClass{chars: uriMark + uriUserOnly + "-.:@[]%", alnum: true, escaped: true}
	classAlnum    = uriClass{alnum: true}
	classAlnumDsh = uriClass{chars: "-", alnum: true}
	classDigit    = uriClass{chars: "0123456789"}
)

func (c uriClass) match(r rune) bool {
	if r >= 0x80 {
		return false
	}
	if c.alnum && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
		return true
	}
	return strings.ContainsRune(c.chars, r)
}

type uriParser struct {
	in  []rune
	uri javaURI
}

// parseJavaURI is new java.net.URI(s).
func parseJavaURI(s string) (*javaURI, error) {
	p := &uriParser{in: []rune(s)}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return &p.uri, nil
}

func (p *uriParser) at(i int, c rune) bool { return i < len(p.in) && p.in[i] == c }

func (p *uriParser) str(from, to int) *string {
	s := string(p.in[from:to])
	return &s
}

// scanTo returns the index of the first of stop from start to end (end
// when none), or -1 when one of errs comes first.
func (p *uriParser) scanTo(start, end int, errs, stop string) int {
	for i := start; i < end; i++ {
		if strings.ContainsRune(errs, p.in[i]) {
			return -1
		}
		if strings.ContainsRune(stop, p.in[i]) {
			return i
		}
	}
	return end
}

// scanClass returns the end of the run of characters of c from start.
func (p *uriParser) scanClass(start, end int, c uriClass) int {
	i := start
	for i < end {
		r := p.in[i]
		switch {
		case c.match(r):
			i++
		case c.escaped && r == '%' && i+2 < end && isHex(p.in[i+1]) && isHex(p.in[i+2]):
			i += 3
		case c.escaped && r >= 0x80 && !unicode.IsSpace(r) && !unicode.IsControl(r):
			i++
		default:
			return i
		}
	}
	return i
}

func isHex(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
}

// check fails unless start..end is all of c, as Java's checkChars.
func (p *uriParser) check(start, end int, c uriClass, what string) error {
	if q := p.scanClass(start, end, c); q < end {
		if p.in[q] == '%' && c.escaped {
			return &uriSyntaxError{"Malformed escape pair", q}
		}
		return &uriSyntaxError{"Illegal character in " + what, q}
	}
	return nil
}

func (p *uriParser) parse() error {
	n := len(p.in)
	i := p.scanTo(0, n, "/?#", ":")
	if i >= 0 && p.at(i, ':') {
		if i == 0 {
			return &uriSyntaxError{"Expected scheme name", 0}
		}
		if r := p.in[0]; !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return &uriSyntaxError{"Illegal character in scheme name", 0}
		}
		if err := p.check(1, i, classScheme, "scheme name"); err != nil {
			return err
		}
		p.uri.scheme = p.str(0, i)
		i++
		if p.at(i, '/') {
			var err error
			if i, err = p.hierarchical(i, n); err != nil {
				return err
			}
		} else {
			q := p.scanTo(i, n, "", "#")
			if q <= i {
				return &uriSyntaxError{"Expected scheme-specific part", i}
			}
			if err := p.check(i, q, classURIC, "opaque part"); err != nil {
				return err
			}
			i = q
		}
	} else {
		var err error
		if i, err = p.hierarchical(0, n); err != nil {
			return err
		}
	}
	if p.at(i, '#') {
		if err := p.check(i+1, n, classURIC, "fragment"); err != nil {
			return err
		}
		p.uri.fragment = p.str(i+1, n)
		i = n
	}
	if i < n {
		return &uriSyntaxError{"Expected end of URI", i}
	}
	return nil
}

func (p *uriParser) hierarchical(i, n int) (int, error) {
	if p.at(i, '/') && p.at(i+1, '/') {
		i += 2
		q := p.scanTo(i, n, "", "/?#")
		switch {
		case q > i:
			if err := p.authority(i, q); err != nil {
				return 0, err
			}
			i = q
		case q >= n:
			return 0, &uriSyntaxError{"Expected authority", i}
		}
	}
	q := p.scanTo(i, n, "", "?#")
	if err := p.check(i, q, classPath, "path"); err != nil {
		return 0, err
	}
	p.uri.path = p.str(i, q)
	i = q
	if p.at(i, '?') {
		i++
		q = p.scanTo(i, n, "", "#")
		if err := p.check(i, q, classURIC, "query"); err != nil {
			return 0, err
		}
		p.uri.query = p.str(i, q)
		i = q
	}
	return i, nil
}

// authority is Java's parseAuthority: server-based (user info, host,
// port) when it parses as one, else registry-based (no host).
func (p *uriParser) authority(start, n int) error {
	server := classServer
	if p.scanTo(start, n, "", "]") < n {
		server = classServerPc
	}
	serverChars := p.scanClass(start, n, server) == n
	regChars := p.scanClass(start, n, classRegName) == n
	if regChars && !serverChars {
		p.uri.authority = p.str(start, n)
		return nil
	}
	var serverErr error
	if serverChars {
		q, err := p.server(start, n)
		if err == nil && q < n {
			err = &uriSyntaxError{"Expected end of authority", q}
		}
		if err == nil {
			p.uri.authority = p.str(start, n)
			return nil
		}
		p.uri.userInfo, p.uri.host = nil, nil
		serverErr = err
	}
	if regChars {
		p.uri.authority = p.str(start, n)
		return nil
	}
	if serverErr != nil {
		return serverErr
	}
	return &uriSyntaxError{"Illegal character in authority", p.scanClass(start, n, server)}
}

// server is Java's parseServer: [userinfo@]host[:port].
func (p *uriParser) server(start, n int) (int, error) {
	i := start
	if q := p.scanTo(i, n, "/?#", "@"); q >= i && p.at(q, '@') {
		if err := p.check(i, q, classUserInfo, "user info"); err != nil {
			return 0, err
		}
		p.uri.userInfo = p.str(i, q)
		i = q + 1
	}
	if p.at(i, '[') {
		q := p.scanTo(i+1, n, "/?#", "]")
		if q <= i+1 || !p.at(q, ']') {
			return 0, &uriSyntaxError{"Expected closing bracket for IPv6 address", max(q, i)}
		}
		if err := p.ipv6(i+1, q); err != nil {
			return 0, err
		}
		p.uri.host = p.str(i, q+1)
		i = q + 1
	} else {
		q, err := p.hostname(i, n)
		if err != nil {
			return 0, err
		}
		i = q
	}
	if p.at(i, ':') {
		i++
		q := p.scanTo(i, n, "", "/")
		if q > i {
			if err := p.check(i, q, classDigit, "port number"); err != nil {
				return 0, err
			}
			if _, err := strconv.ParseInt(string(p.in[i:q]), 10, 32); err != nil {
				return 0, &uriSyntaxError{"Malformed port number", i}
			}
			i = q
		}
	}
	if i < n {
		return 0, &uriSyntaxError{"Expected port number", i}
	}
	return i, nil
}

// ipv6 checks an IPv6 literal, with an optional %scope of letters and digits.
func (p *uriParser) ipv6(start, end int) error {
	addr := string(p.in[start:end])
	if k := strings.IndexByte(addr, '%'); k >= 0 {
		scope := addr[k+1:]
		if scope == "" || strings.IndexFunc(scope, func(r rune) bool { return !classAlnum.match(r) }) >= 0 {
			return &uriSyntaxError{"Illegal character in scope id", start + k + 1}
		}
		addr = addr[:k]
	}
	if a, err := netip.ParseAddr(addr); err != nil || !a.Is6() {
		return &uriSyntaxError{"Malformed IPv6 address", start}
	}
	return nil
}

// hostname is Java's parseIPv4Address then parseHostname: labels of
// letters, digits and inner dashes, separated by dots, the last one
// starting with a letter (unless the host is a dotted IPv4 address).
func (p *uriParser) hostname(start, n int) (int, error) {
	if q := p.ipv4(start, n); q > start {
		p.uri.host = p.str(start, q)
		return q, nil
	}
	i, last := start, -1
	for i < n {
		q := p.scanClass(i, n, classAlnum)
		if q <= i {
			break
		}
		last, i = i, q
		if q = p.scanClass(i, n, classAlnumDsh); q > i {
			if p.in[q-1] == '-' {
				return 0, &uriSyntaxError{"Illegal character in hostname", q - 1}
			}
			i = q
		}
		if !p.at(i, '.') {
			break
		}
		i++
	}
	if i < n && !p.at(i, ':') {
		return 0, &uriSyntaxError{"Illegal character in hostname", i}
	}
	if last < 0 {
		return 0, &uriSyntaxError{"Expected hostname", start}
	}
	if r := p.in[last]; last > start && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
		return 0, &uriSyntaxError{"Illegal character in hostname", last}
	}
	p.uri.host = p.str(start, i)
	return i, nil
}

// ipv4 returns the end of a dotted-quad IPv4 address at start that ends
// the authority or precedes ':', else -1.
func (p *uriParser) ipv4(start, n int) int {
	i := start
	for part := 0; part < 4; part++ {
		if part > 0 {
			if !p.at(i, '.') {
				return -1
			}
			i++
		}
		q := p.scanClass(i, n, classDigit)
		if q == i {
			return -1
		}
		if v, _ := strconv.Atoi(string(p.in[i:q])); v > 255 {
			return -1
		}
		i = q
	}
	if i < n && !p.at(i, ':') {
		return -1
	}
	return i
}
