package functions_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestParseURL checks parse_url on the cases of Spark's UrlFunctionsSuite
// and StringExpressionsSuite (every part of a URL; escapes kept raw; an
// empty query and fragment; a path with parameters; an unknown part,
// a key on a part other than QUERY, a missing key, NULLs) and on
// java.net.URI's documented rules (an underscore makes a registry-based
// authority, so no host; an opaque URI has no path).
func TestParseURL(t *testing.T) {
	type parts struct{ host, path, query, ref, protocol, file, authority, userinfo, key1 string }
	for url, want := range map[string]parts{
		"http://userinfo@spark.apache.org/path?query=1#Ref": {"spark.apache.org", "/path", "query=1", "Ref", "http", "/path?query=1", "userinfo@spark.apache.org", "userinfo", "1"},
		"https://use%20r:pas%20s@example.com/dir%20/pa%20th.HTML?query=x%20y&q2=2#Ref%20two": {"example.com", "/dir%20/pa%20th.HTML", "query=x%20y&q2=2", "Ref%20two", "https",
			"/dir%20/pa%20th.HTML?query=x%20y&q2=2", "use%20r:pas%20s@example.com", "use%20r:pas%20s", "x%20y"},
		"http://user:pass@host":                         {"host", "", "NULL", "NULL", "http", "", "user:pass@host", "user:pass", "NULL"},
		"http://user:pass@host/":                        {"host", "/", "NULL", "NULL", "http", "/", "user:pass@host", "user:pass", "NULL"},
		"http://user:pass@host/?#":                      {"host", "/", "", "", "http", "/?", "user:pass@host", "user:pass", "NULL"},
		"http://user:pass@host/file;param?query;p2":     {"host", "/file;param", "query;p2", "NULL", "http", "/file;param?query;p2", "user:pass@host", "user:pass", "NULL"},
		"http://spark.apache.org:8080/path?a=1&query=2": {"spark.apache.org", "/path", "a=1&query=2", "NULL", "http", "/path?a=1&query=2", "spark.apache.org:8080", "NULL", "2"},
		"http://my_host:8080/p":                         {"NULL", "/p", "NULL", "NULL", "http", "/p", "my_host:8080", "NULL", "NULL"},
		"http://[::1]:80/p?query=v#f":                   {"[::1]", "/p", "query=v", "f", "http", "/p?query=v", "[::1]:80", "NULL", "v"},
		"http://10.0.0.1/":                              {"10.0.0.1", "/", "NULL", "NULL", "http", "/", "10.0.0.1", "NULL", "NULL"},
		"mailto:someone@example.com":                    {"NULL", "NULL", "NULL", "NULL", "mailto", "NULL", "NULL", "NULL", "NULL"},
		"test":                                          {"NULL", "test", "NULL", "NULL", "NULL", "test", "NULL", "NULL", "NULL"},
	} {
		for part, w := range map[string]string{"HOST": want.host, "PATH": want.path, "QUERY": want.query, "REF": want.ref, "PROTOCOL": want.protocol,
			"FILE": want.file, "AUTHORITY": want.authority, "USERINFO": want.userinfo} {
			e := fmt.Sprintf("parse_url('%s', '%s')", url, part)
			if got, err := one(t, e); err != nil || got != w {
				t.Errorf("%s = %q, %v; want %q", e, got, err, w)
			}
		}
		e := fmt.Sprintf("parse_url('%s', 'QUERY', 'query')", url)
		if got, err := one(t, e); err != nil || got != want.key1 {
			t.Errorf("%s = %q, %v; want %q", e, got, err, want.key1)
		}
	}
	for e, want := range map[string]string{
		"parse_url('http://spark.apache.org/path?query=1', 'NO')":            "NULL",
		"parse_url('http://spark.apache.org/path?query=1', 'host')":          "NULL",
		"parse_url('http://spark.apache.org/path?query=1', 'HOST', 'query')": "NULL",
		"parse_url('http://spark.apache.org/path?query=1', 'QUERY', 'quer')": "NULL",
		"parse_url('http://spark.apache.org/path?query=1', 'QUERY', '')":     "NULL",
		"parse_url('http://spark.apache.org/path?query=1', 'QUERY', NULL)":   "NULL",
		"parse_url(NULL, 'HOST')":                                                "NULL",
		"parse_url('http://spark.apache.org/', NULL)":                            "NULL",
		"try_parse_url('inva lid://user:pass@host/file;param?query;p2', 'HOST')": "NULL",
		"try_parse_url('http://a b/', 'HOST')":                                   "NULL",
		"try_parse_url('http://host/a b', 'PATH')":                               "NULL",
		"try_parse_url('http://host/p#bad%zz', 'REF')":                           "NULL",
		"try_parse_url('http://host:99999999999/', 'HOST')":                      "NULL",
		"try_parse_url('http://[::1/p', 'HOST')":                                 "NULL",
		"try_parse_url('http://', 'HOST')":                                       "NULL",
		"try_parse_url('http:', 'PROTOCOL')":                                     "NULL",
	} {
		if got, err := one(t, e); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", e, got, err, want)
		}
	}
	for _, url := range []string{"inva lid://user:pass@host/file;param?query;p2", "http://[::1/path"} {
		_, err := one(t, fmt.Sprintf("parse_url('%s', 'HOST')", url))
		want := "[INVALID_URL] The url is invalid: " + url + ". Use `try_parse_url` to tolerate invalid URL and return NULL instead. SQLSTATE: 22P02"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parse_url(%q): want %s, got %v", url, want, err)
		}
	}
}

// TestURLCodec checks url_encode and url_decode against Java's
// URLEncoder/URLDecoder (the example of URLEncoder's documentation,
// '~' escaped and '*' kept unlike Go's QueryEscape, '+' as a space)
// and Spark's CANNOT_DECODE_URL for a bad escape.
func TestURLCodec(t *testing.T) {
	for e, want := range map[string]string{
		"url_encode('The string ü@foo-bar')":             "The+string+%C3%BC%40foo-bar",
		"url_encode('a~b*c.d-e_f')":                      "a%7Eb*c.d-e_f",
		"url_encode('')":                                 "",
		"url_encode(NULL)":                               "NULL",
		"url_decode('The+string+%C3%BC%40foo-bar')":      "The string ü@foo-bar",
		"url_decode('https%3A%2F%2Fspark.apache.org')":   "https://spark.apache.org",
		"url_decode('%e2%82%ac')":                        "€",
		"url_decode(NULL)":                               "NULL",
		"try_url_decode('http%3A%2F%2spark.apache.org')": "NULL",
		"try_url_decode('100%')":                         "NULL",
		"try_url_decode('%4')":                           "NULL",
		"try_url_decode('a%20b')":                        "a b",
	} {
		if got, err := one(t, e); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", e, got, err, want)
		}
	}
	_, err := one(t, "url_decode('http%3A%2F%2spark.apache.org')")
	want := "[CANNOT_DECODE_URL] The provided URL cannot be decoded: http%3A%2F%2spark.apache.org. Please ensure that the URL is properly formatted and try again. SQLSTATE: 22546"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("url_decode of a bad escape: want %s, got %v", want, err)
	}
}
