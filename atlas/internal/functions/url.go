package functions

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/atlas-lakehouse/atlas/atlas/internal/javaregex"
)

// urlDefs defines the url group: parse_url, try_parse_url, url_encode, url_decode, try_url_decode.
func urlDefs() []*Def {
	return []*Def{
		parseURLDef("parse_url", true),
		parseURLDef("try_parse_url", false),
		row("url_encode", "url", 1, 1, &rowImpl{resolve: sig(tString, tString), eval: func(v []any) (any, error) {
			return javaURLEncode(v[0].(string)), nil
		}}),
		row("url_decode", "url", 1, 1, &rowImpl{resolve: sig(tString, tString), eval: func(v []any) (any, error) {
			s, ok := javaURLDecode(v[0].(string))
			if !ok {
				return nil, fmt.Errorf("[CANNOT_DECODE_URL] The provided URL cannot be decoded: %s. Please ensure that the URL is properly formatted and try again. SQLSTATE: 22546", v[0])
			}
			return s, nil
		}}),
		row("try_url_decode", "url", 1, 1, &rowImpl{resolve: sig(tString, tString), mayBeNull: true, eval: func(v []any) (any, error) {
			if s, ok := javaURLDecode(v[0].(string)); ok {
				return s, nil
			}
			return nil, nil
		}}),
	}
}

// parseURLDef is parse_url(url, part[, key]) as Spark's ParseUrl: the
// raw part of java.net.URI's parse (NULL for an unknown part or one the
// URL lacks), with a key the value of key= in the query. An invalid URL
// is Spark's INVALID_URL when failOnError (ANSI mode), else NULL.
func parseURLDef(name string, failOnError bool) *Def {
	cache := &javaregex.Cache{}
	return row(name, "url", 2, 3, &rowImpl{resolve: sig(tString, tString), mayBeNull: true, eval: func(v []any) (any, error) {
		u, err := parseJavaURI(v[0].(string))
		if err != nil {
			if failOnError {
				return nil, fmt.Errorf("[INVALID_URL] The url is invalid: %s. Use `try_parse_url` to tolerate invalid URL and return NULL instead. SQLSTATE: 22P02", v[0])
			}
			return nil, nil
		}
		part := v[1].(string)
		if len(v) == 3 && part != "QUERY" {
			return nil, nil
		}
		got := urlPart(u, part)
		if len(v) == 2 || got == nil {
			return got, nil
		}
		re, err := compileRegex(cache, name, "(&|^)"+v[2].(string)+"=([^&]*)")
		if err != nil {
			return nil, err
		}
		if m := re.FindStringSubmatch(got.(string)); m != nil {
			return m[2], nil
		}
		return nil, nil
	}})
}

// urlPart is one of ParseUrl's parts (case-sensitive, as Spark's).
func urlPart(u *javaURI, part string) any {
	var s *string
	switch part {
	case "HOST":
		s = u.host
	case "PATH":
		s = u.path
	case "QUERY":
		s = u.query
	case "REF":
		s = u.fragment
	case "PROTOCOL":
		s = u.scheme
	case "FILE":
		if u.query != nil && u.path != nil {
			return *u.path + "?" + *u.query
		}
		s = u.path
	case "AUTHORITY":
		s = u.authority
	case "USERINFO":
		s = u.userInfo
	}
	if s == nil {
		return nil
	}
	return *s
}

// javaURLEncode is java.net.URLEncoder.encode(s, UTF-8): letters,
// digits and ".-*_" stay, a space becomes '+', every other byte of the
// UTF-8 encoding %XX. (Go's url.QueryEscape differs on '~' and '*'.)
func javaURLEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte(".-*_", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// javaURLDecode is java.net.URLDecoder.decode(s, UTF-8): '+' is a
// space, %XX a byte (runs of them decoded as UTF-8, a malformed sequence
// as U+FFFD); ok is false where Java throws IllegalArgumentException (an
// incomplete escape or a non-hex digit).
func javaURLDecode(s string) (string, bool) {
	var out []byte
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '+':
			out = append(out, ' ')
			i++
		case '%':
			var run []byte
			for i < len(s) && s[i] == '%' {
				if i+3 > len(s) {
					return "", false
				}
				v, ok := javaHexByte(s[i+1 : i+3])
				if !ok {
					return "", false
				}
				run = append(run, v)
				i += 3
			}
			out = append(out, []byte(strings.ToValidUTF8(string(run), string(utf8.RuneError)))...)
		default:
			out = append(out, c)
			i++
		}
	}
	return string(out), true
}

// javaHexByte is Integer.parseInt(h, 16) of a two-character escape as
// URLDecoder reads it: a leading '+' is a sign, a negative value fails.
func javaHexByte(h string) (byte, bool) {
	v, start := 0, 0
	if h[0] == '+' {
		start = 1
	}
	for _, r := range h[start:] {
		var d int
		switch {
		case r >= '0' && r <= '9':
			d = int(r - '0')
		case r >= 'a' && r <= 'f':
			d = int(r-'a') + 10
		case r >= 'A' && r <= 'F':
			d = int(r-'A') + 10
		default:
			return 0, false
		}
		v = v*16 + d
	}
	return byte(v), true
}
