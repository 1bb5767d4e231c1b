package engine

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// SetConf sets a runtime setting, as spark.conf.set. The engine honours
// the streaming settings it knows (spark.sql.streaming.multipleWatermarkPolicy,
// spark.sql.streaming.noDataProgressEventInterval) for the queries started
// after; the session's construction settings (ConfHome and the other
// atlas.* keys) are fixed when the session is built and do not change.
func (s *Session) SetConf(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runtime == nil {
		s.runtime = map[string]string{}
	}
	s.runtime[key] = value
}

// UnsetConf forgets a runtime setting, as spark.conf.unset: the value the
// session was built with, if any, applies again.
func (s *Session) UnsetConf(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.runtime, key)
}

// confValue is a setting: the runtime value, else the construction one.
func (s *Session) confValue(key string) string {
	s.mu.Lock()
	v, ok := s.runtime[key]
	s.mu.Unlock()
	if ok {
		return v
	}
	return s.conf[key]
}

// ConfANSIEnabled is spark.sql.ansi.enabled: true (Spark 4's default) makes
// an explicit CAST of a malformed string or an out-of-range number fail the
// query with CAST_INVALID_INPUT or CAST_OVERFLOW; false gives Spark's
// non-ANSI NULL and saturation. TryCast and try_cast give NULL either way.
const ConfANSIEnabled = "spark.sql.ansi.enabled"

// castContext carries the session's spark.sql.ansi.enabled and time zone
// in ctx, for the casts and datetime functions of the query run under it (read when the query runs, as
// Spark Connect analyzes a plan when it executes).
func (s *Session) castContext(ctx context.Context) context.Context {
	if s == nil {
		return ctx
	}
	ctx = expr.WithZone(ctx, s.Zone())
	return expr.WithANSI(ctx, !strings.EqualFold(strings.TrimSpace(s.confValue(ConfANSIEnabled)), "false"))
}

// Zone is the session time zone, spark.sql.session.timeZone read through
// Go's time zone database (expr.ParseZoneID); UTC when unset. A value
// that names no zone is refused where it is set (the Connect server's
// config and SET), and reads as UTC here.
func (s *Session) Zone() *time.Location {
	if s == nil {
		return time.UTC
	}
	v := strings.TrimSpace(s.confValue(expr.ConfSessionTimeZone))
	if v == "" {
		return time.UTC
	}
	loc, err := expr.ParseZoneID(v)
	if err != nil {
		return time.UTC
	}
	return loc
}

// ParserOptions are the SQL parser's options under the session's
// settings: the session time zone (Zone), and spark.atlas.sql.parser.maxNestingDepth (parser.ConfMaxDepth)
// bounds how deeply a statement may nest, parser.DefaultMaxDepth unless
// set to a positive integer.
func (s *Session) ParserOptions() parser.Options {
	if s == nil {
		return parser.Options{}
	}
	o := parser.Options{Zone: s.Zone()}
	if n, err := strconv.Atoi(strings.TrimSpace(s.confValue(parser.ConfMaxDepth))); err == nil && n > 0 {
		o.MaxDepth = n
	}
	return o
}
