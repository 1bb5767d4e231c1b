package lakehouse

import (
	"maps"
	"slices"

	"github.com/atlas-lakehouse/atlas/atlas/internal/redact"
)

// Redact returns s, a catalog URI or any text that embeds one, with its
// secrets masked: the password of postgres://user:password@host and the
// values of secret-looking parameters (password=, _auth_pass=, token=,
// s3.secret-access-key=, sig=, ...). Every printer of a URI goes through it.
func Redact(s string) string { return redact.String(s) }

// Secrets returns the secret values the configuration holds: the URI's
// user-info password and secret parameters, and the values of secret
// catalog properties (ATLAS_CATALOG_PROPS).
func (c Config) Secrets() []string {
	out := redact.Find(c.URI)
	out = append(out, redact.Find(c.Warehouse)...)
	for _, k := range slices.Sorted(maps.Keys(c.Properties)) {
		v := c.Properties[k]
		if redact.IsSecretKey(k) && v != "" {
			out = append(out, v)
		}
		out = append(out, redact.Find(v)...)
	}
	return out
}

// Redact returns s with every secret of the configuration masked, wherever
// it appears, and every other recognisable secret too (see Redact).
func (c Config) Redact(s string) string { return redact.Values(s, c.Secrets()) }

// RedactError wraps err so that its message carries none of the
// configuration's secrets; errors.Is and errors.As still see the cause.
// Errors of the catalog and its driver (sqlite, Postgres, REST) may quote
// the DSN they were given.
func (c Config) RedactError(err error) error { return redact.Err(err, c.Secrets()) }

// Redacted returns a copy of c fit for printing: URI, warehouse and
// properties with their secrets masked.
func (c Config) Redacted() Config {
	r := c
	r.URI = Redact(c.URI)
	r.Warehouse = Redact(c.Warehouse)
	r.Properties = redact.Props(c.Properties)
	return r
}
