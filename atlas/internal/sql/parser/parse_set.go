package parser

import (
	"regexp"
	"strings"
)

// SetConfig is Spark's SET statement on a session setting:
//
//   - SET: list the settings the session holds (Key "");
//   - SET -v: the same, Verbose;
//   - SET key: read one (HasValue false);
//   - SET key=value: set one; the value is the raw text after '=' up to
//     the end of the statement, trimmed, as Spark reads it;
//   - SET `key`=`value`: the same with quoted parts, so they may hold any
//     character;
//   - SET TIME ZONE 'zone': Key spark.sql.session.timeZone.
type SetConfig struct {
	Key      string
	Value    string
	HasValue bool
	Verbose  bool
	At       Position
}

// ResetConfig is RESET (every setting back to its default, Key "") or
// RESET key.
type ResetConfig struct {
	Key string
	At  Position
}

// ConfSessionTimeZone is the setting SET TIME ZONE writes.
const ConfSessionTimeZone = "spark.sql.session.timeZone"

// Spark's SparkSqlAstBuilder reads an unquoted SET with these patterns.
var (
	setKeyValue = regexp.MustCompile(`(?s)^([a-zA-Z_\d\\.:]+)\s*=(.*)$`)
	setKeyOnly  = regexp.MustCompile(`^([a-zA-Z_\d\\.:]+)$`)
	resetKey    = regexp.MustCompile(`^[a-zA-Z_\d\\.:]+$`)
)

// invalidSet is Spark's INVALID_SET_SYNTAX.
const invalidSet = "[INVALID_SET_SYNTAX] Expected format is 'SET', 'SET key', or 'SET key=value'. If you want to include special characters in key, or include semicolon in value, please use backquotes, e.g., SET `key`=`value`. SQLSTATE: 42000"

// setStmt parses SET ... up to the end of the statement.
func (p *parser) setStmt() Statement {
	kw := p.advance()
	s := &SetConfig{At: kw.pos}
	if p.at("TIME") && p.look(1).is("ZONE") {
		return p.setTimeZone(s)
	}
	if p.tok().kind == tokQuotedIdent && p.atStatementEnd(1) {
		s.Key = p.advance().val
		return s
	}
	if p.tok().kind == tokQuotedIdent && p.look(1).isOp("=") {
		s.Key = p.advance().val
		p.advance()
		s.HasValue = true
		if p.tok().kind == tokQuotedIdent && p.atStatementEnd(1) {
			s.Value = p.advance().val
			return s
		}
		s.Value = strings.TrimSpace(p.rawToEnd())
		return s
	}
	first := p.tok()
	raw := strings.TrimSpace(p.rawToEnd())
	switch m := setKeyValue.FindStringSubmatch(raw); {
	case m != nil:
		s.Key, s.Value, s.HasValue = m[1], strings.TrimSpace(m[2]), true
	case setKeyOnly.MatchString(raw):
		s.Key = raw
	case raw == "-v":
		s.Verbose = true
	case raw != "":
		e := newError(p.src, first.pos, "", "%s", invalidSet)
		e.Class, e.SQLState = "INVALID_SET_SYNTAX", "42000"
		panic(bailout{e})
	}
	return s
}

// setTimeZone parses SET TIME ZONE 'zone' (TIME ZONE LOCAL and an
// interval offset are refused: Atlas has no JVM default zone to name).
func (p *parser) setTimeZone(s *SetConfig) Statement {
	p.advance()
	p.advance()
	s.Key, s.HasValue = ConfSessionTimeZone, true
	if p.tok().kind == tokString {
		s.Value = p.stringLit("a time zone", "after SET TIME ZONE")
		return s
	}
	p.expected("a time zone name in quotes, such as 'America/Los_Angeles'", "after SET TIME ZONE",
		"SET TIME ZONE LOCAL and SET TIME ZONE INTERVAL are not supported; name the zone or an offset such as '+08:00'")
	return nil
}

// resetStmt parses RESET [key].
func (p *parser) resetStmt() Statement {
	kw := p.advance()
	s := &ResetConfig{At: kw.pos}
	if p.tok().kind == tokQuotedIdent && p.atStatementEnd(1) {
		s.Key = p.advance().val
		return s
	}
	first := p.tok()
	raw := strings.TrimSpace(p.rawToEnd())
	if raw != "" && !resetKey.MatchString(raw) {
		p.fail(first, "quote a key with special characters in backticks: RESET `key`", "RESET takes one setting's key, found %q", raw)
	}
	s.Key = raw
	return s
}

// atStatementEnd reports whether the token k ahead ends the statement: the
// end of the input or a ';'.
func (p *parser) atStatementEnd(k int) bool {
	t := p.look(k)
	return t.kind == tokEOF || t.isOp(";")
}

// rawToEnd consumes every token up to the end of the statement and returns
// the source text they span, as Spark reads the remainder of a SET.
func (p *parser) rawToEnd() string {
	start := p.tok().pos.Offset
	end := start
	for !p.atStatementEnd(0) {
		end = p.advance().end.Offset
	}
	return p.src[start:end]
}

// Pos returns where the statement starts.
func (s *SetConfig) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *ResetConfig) Pos() Position { return s.At }

func (*SetConfig) stmtNode()   {}
func (*ResetConfig) stmtNode() {}

// String renders the statement with the key quoted, and the value quoted
// when it holds a character the raw form would not read back.
func (s *SetConfig) String() string {
	switch {
	case s.Verbose:
		return "SET -v"
	case s.Key == "":
		return "SET"
	case !s.HasValue:
		return "SET " + backquote(s.Key)
	}
	if strings.ContainsAny(s.Value, ";`'\"") || strings.Contains(s.Value, "--") || strings.Contains(s.Value, "/*") {
		return "SET " + backquote(s.Key) + " = " + backquote(s.Value)
	}
	return "SET " + backquote(s.Key) + " = " + s.Value
}

// String renders the statement.
func (s *ResetConfig) String() string {
	if s.Key == "" {
		return "RESET"
	}
	return "RESET " + backquote(s.Key)
}

// backquote quotes s as a `name`, doubling backticks inside.
func backquote(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
