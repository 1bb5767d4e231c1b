// Package redact hides secrets (passwords, keys, tokens) in catalog URIs,
// catalog properties and the messages that embed them, before anything is
// printed, logged or written to disk. Every printer of a catalog URI or of
// an error that may carry one goes through it.
package redact

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Mask replaces every secret value.
const Mask = "***"

// secretWords are the name parts that mark a parameter as secret:
// password=, _auth_pass=, s3.secret-access-key=, token=, sig= (Azure SAS),
// client_secret=, credential=, ...
var secretWords = []string{
	"password", "passwd", "pass", "pwd", "secret", "token", "key", "apikey",
	"credential", "credentials", "sig", "signature", "sas", "auth", "authorization", "bearer",
}

// nonSecretWords are name parts that make a "key" or "auth" parameter
// harmless: an access key id or a user name is not a secret.
var nonSecretWords = []string{"id", "user", "username", "type", "mode", "method", "url", "uri", "endpoint"}

// IsSecretKey reports whether a parameter or property named key holds a
// secret: one of its parts (split on anything but letters and digits, and
// on camel case) is a secret word (password, pass, secret, token, key,
// sig, ...), and it does not name something harmless such as an id or a
// user name (s3.access-key-id, _auth_user).
func IsSecretKey(key string) bool {
	parts := splitWords(key)
	secret := false
	for _, p := range parts {
		if slices.Contains(secretWords, p) || strings.Contains(p, "password") || strings.Contains(p, "secret") || strings.Contains(p, "token") {
			secret = true
		}
	}
	if !secret {
		return false
	}
	// "secret", "password" and "token" are always secret; a bare "key" or
	// "auth" next to "id" or "user" is not.
	for _, p := range parts {
		if strings.Contains(p, "password") || strings.Contains(p, "secret") || strings.Contains(p, "token") ||
			slices.Contains([]string{"pass", "passwd", "pwd", "sig", "signature", "sas", "credential", "credentials", "apikey", "authorization", "bearer"}, p) {
			return true
		}
	}
	for _, p := range parts {
		if slices.Contains(nonSecretWords, p) {
			return false
		}
	}
	return true
}

// splitWords lower-cases key and splits it into its words.
func splitWords(key string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			cur = append(cur, r)
			prevLower = true
		case r >= 'A' && r <= 'Z':
			if prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = false
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}

// keyValue finds key=value pairs in free text: URI query parameters,
// key/value DSNs (host=h password=p), property lists (k=v,k2=v2). A value
// ends at &, ;, a comma, white space or a closing quote; quoted values are
// taken whole.
var keyValue = regexp.MustCompile(`([A-Za-z0-9_.\-]+)(\s*=\s*)('[^']*'|"[^"]*"|[^\s&;,'"` + "`" + `]+)`)

// String returns s with every secret it can recognise masked: the
// password of a URL's user info (postgres://user:pw@host), and the value
// of every key=value pair whose key looks secret (see IsSecretKey), in a
// URI query, a key/value DSN or a property list. The rest is kept as it
// is, so the result still says which catalog, host and file is meant.
func String(s string) string {
	s = userInfo(s)
	return keyValue.ReplaceAllStringFunc(s, func(m string) string {
		sub := keyValue.FindStringSubmatch(m)
		if !IsSecretKey(sub[1]) || sub[3] == Mask {
			return m
		}
		return sub[1] + sub[2] + Mask
	})
}

// userInfo masks the password of every scheme://user:password@host in s.
func userInfo(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		// The authority ends at the first white space or query; the user
		// info at the last @ before it (a password may hold / or @).
		end := strings.IndexAny(s, " \t\n?#`'\"")
		if end < 0 {
			end = len(s)
		}
		at := strings.LastIndexByte(s[:end], '@')
		if at < 0 {
			continue
		}
		user := s[:at]
		if c := strings.IndexByte(user, ':'); c >= 0 && !strings.ContainsAny(user[:c], "/") {
			b.WriteString(user[:c+1])
			b.WriteString(Mask)
			b.WriteByte('@')
			s = s[at+1:]
		}
	}
}

// Find returns the secret values s holds, as String would mask them: the
// password of a URL's user info and the values of secret key=value pairs,
// each both as written and decoded (percent-escapes, quotes), so that
// Values can mask them wherever a driver quotes them.
func Find(s string) []string {
	var out []string
	add := func(v string) {
		v = strings.Trim(v, `'"`)
		if v == "" || v == Mask {
			return
		}
		out = append(out, v)
		if u, err := url.QueryUnescape(v); err == nil && u != v {
			out = append(out, u)
		}
	}
	rest := s
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			break
		}
		rest = rest[i+3:]
		end := strings.IndexAny(rest, " \t\n?#`'\"")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			if c := strings.IndexByte(rest[:at], ':'); c >= 0 && !strings.ContainsAny(rest[:c], "/") {
				add(rest[c+1 : at])
			}
		}
	}
	for _, m := range keyValue.FindAllStringSubmatch(s, -1) {
		if IsSecretKey(m[1]) {
			add(m[3])
		}
	}
	return out
}

// Props returns a copy of props with the values of secret keys masked.
func Props(props map[string]string) map[string]string {
	if props == nil {
		return nil
	}
	out := make(map[string]string, len(props))
	for k, v := range props {
		if IsSecretKey(k) {
			v = Mask
		}
		out[k] = String(v)
	}
	return out
}

// minSecretLen is the shortest secret value Values replaces wherever it
// occurs; shorter ones would mangle the text (they are still masked where
// they appear as key=value or in a URL's user info).
const minSecretLen = 4

// Values returns s with every occurrence of the given secret values
// masked, then with String applied: the defence for messages that quote a
// secret out of its key=value context (a driver that prints the decoded
// password, say).
func Values(s string, secrets []string) string {
	// Longest first, so that a secret containing another is masked whole.
	secrets = slices.Clone(secrets)
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, v := range secrets {
		if len(v) >= minSecretLen {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	return String(s)
}

// Error is an error whose message has its secrets masked; Unwrap returns
// the original, so errors.Is and errors.As still see the cause.
type Error struct {
	msg string
	err error
}

// Err wraps err so that its message has the given secret values and every
// recognisable secret masked (see Values). It returns nil for nil.
func Err(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*Error); ok && len(secrets) == 0 {
		return err
	}
	return &Error{msg: Values(err.Error(), secrets), err: err}
}

// Error returns the masked message.
func (e *Error) Error() string { return e.msg }

// Unwrap returns the original error.
func (e *Error) Unwrap() error { return e.err }
