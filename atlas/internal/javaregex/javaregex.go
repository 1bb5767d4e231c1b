// Package javaregex compiles Java regular expressions, the dialect of
// Spark's rlike, regexp_extract, regexp_replace and split, onto Go's RE2
// engine (package regexp). Constructs whose meaning differs are
// rewritten (\v and \h are Java's vertical and horizontal white space,
// \e, \cX, \uhhhh and octal escapes are characters, $n in a replacement
// is a group); constructs RE2 cannot run at all (lookahead and
// lookbehind, backreferences, possessive quantifiers, atomic groups,
// class intersections, \G, \Z, \R, \X) are refused with an
// UnsupportedError naming the construct, rather than matched another
// way. Known remaining differences: Java's '.' also excludes \r, \u0085,
// \u2028 and \u2029, and its '$' also matches before a final line break.
package javaregex

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// UnsupportedError is a valid Java pattern using a construct RE2 cannot
// evaluate.
type UnsupportedError struct {
	Pattern   string
	Construct string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("the Java regular expression %q uses %s, which Atlas's regular expression engine (RE2, linear time, no backtracking) cannot evaluate", e.Pattern, e.Construct)
}

// SyntaxError is a pattern Java's Pattern.compile rejects too.
type SyntaxError struct {
	Pattern string
	Msg     string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid regular expression %q: %s", e.Pattern, e.Msg)
}

// Compile translates a Java pattern and compiles it.
func Compile(pattern string) (*regexp.Regexp, error) {
	re2, err := Translate(pattern)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(re2)
	if err != nil {
		return nil, &SyntaxError{Pattern: pattern, Msg: strings.TrimPrefix(err.Error(), "error parsing regexp: ")}
	}
	return re, nil
}

// Translate rewrites a Java pattern into RE2 syntax with the same meaning.
func Translate(p string) (string, error) {
	t := &translator{src: p}
	if err := t.run(); err != nil {
		return "", err
	}
	return t.out.String(), nil
}

// repetition is a bounded quantifier {n}, {n,} or {n,m}; Java rejects a
// '{' that starts none (RE2 would read it as a literal).
var repetition = regexp.MustCompile(`^\{\d+(,\d*)?\}`)

type translator struct {
	src string
	i   int
	out strings.Builder
}

func (t *translator) unsupported(what string) error {
	return &UnsupportedError{Pattern: t.src, Construct: what}
}

func (t *translator) syntax(format string, args ...any) error {
	return &SyntaxError{Pattern: t.src, Msg: fmt.Sprintf(format, args...)}
}

func (t *translator) peek(k int) byte {
	if t.i+k < len(t.src) {
		return t.src[t.i+k]
	}
	return 0
}

func (t *translator) run() error {
	for t.i < len(t.src) {
		c := t.src[t.i]
		switch c {
		case '\\':
			if err := t.escape(false); err != nil {
				return err
			}
		case '[':
			if err := t.class(); err != nil {
				return err
			}
		case '(':
			if err := t.group(); err != nil {
				return err
			}
		case '{':
			m := repetition.FindString(t.src[t.i:])
			if m == "" {
				return t.syntax("illegal repetition near index %d", t.i)
			}
			t.out.WriteString(m)
			t.i += len(m)
			if t.peek(0) == '+' {
				return t.unsupported("a possessive quantifier (" + m + "+)")
			}
		case '*', '+', '?':
			t.out.WriteByte(c)
			t.i++
			if t.peek(0) == '+' {
				return t.unsupported("a possessive quantifier (" + string(c) + "+)")
			}
		default:
			t.out.WriteByte(c)
			t.i++
		}
	}
	return nil
}

// group handles the opening of a group: (?:, flags, named groups, and
// refuses lookaround and atomic groups.
func (t *translator) group() error {
	if t.peek(1) != '?' {
		t.out.WriteByte('(')
		t.i++
		return nil
	}
	rest := t.src[t.i+2:]
	switch {
	case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"):
		return t.unsupported("lookahead (?" + rest[:1] + "...)")
	case strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"):
		return t.unsupported("lookbehind (?" + rest[:2] + "...)")
	case strings.HasPrefix(rest, ">"):
		return t.unsupported("an atomic group (?>...)")
	case strings.HasPrefix(rest, "<"):
		t.out.WriteString("(?P<")
		t.i += 3
		return nil
	case strings.HasPrefix(rest, ":"):
		t.out.WriteString("(?:")
		t.i += 3
		return nil
	}
	// Inline flags (?idmsux-idmsux) or (?flags:...).
	j := t.i + 2
	var flags strings.Builder
	for ; j < len(t.src) && t.src[j] != ')' && t.src[j] != ':'; j++ {
		switch f := t.src[j]; f {
		case 'i', 'm', 's', '-':
			flags.WriteByte(f)
		case 'u', 'd':
			// UNICODE_CASE (RE2 folds case by Unicode anyway), UNIX_LINES
			// (only \n ends a line, as in RE2).
		case 'x':
			return t.unsupported("the comments flag (?x)")
		case 'U':
			return t.unsupported("the UNICODE_CHARACTER_CLASS flag (?U)")
		default:
			return t.syntax("unknown inline modifier %q", string(f))
		}
	}
	if j >= len(t.src) {
		return t.syntax("unclosed group")
	}
	fs := strings.TrimSuffix(flags.String(), "-")
	if fs == "" {
		if t.src[j] == ':' {
			t.out.WriteString("(?:")
		} else {
			t.out.WriteString("(?:)")
		}
	} else {
		t.out.WriteString("(?" + fs + string(t.src[j]))
	}
	t.i = j + 1
	return nil
}

// class copies a character class [...], translating escapes and refusing
// Java's nested classes and intersections.
func (t *translator) class() error {
	t.out.WriteByte('[')
	t.i++
	if t.peek(0) == '^' {
		t.out.WriteByte('^')
		t.i++
	}
	first := true
	for t.i < len(t.src) {
		c := t.src[t.i]
		switch {
		case c == ']' && !first:
			t.out.WriteByte(']')
			t.i++
			return nil
		case c == ']':
			t.out.WriteString(`\]`)
			t.i++
		case c == '\\':
			if err := t.escape(true); err != nil {
				return err
			}
		case c == '[':
			return t.unsupported("a nested character class ([...[...]])")
		case c == '&' && t.peek(1) == '&':
			return t.unsupported("a character class intersection (&&)")
		default:
			t.out.WriteByte(c)
			t.i++
		}
		first = false
	}
	return t.syntax("unclosed character class")
}

// Java's \v and \h; RE2's \v is the vertical tab alone and it has no \h.
const (
	vertical   = `\n\x0B\f\r\x{85}\x{2028}\x{2029}`
	horizontal = ` \t\x{A0}\x{1680}\x{180e}\x{2000}-\x{200a}\x{202f}\x{205f}\x{3000}`
)

// escape translates the escape at t.i (a backslash).
func (t *translator) escape(inClass bool) error {
	if t.i+1 >= len(t.src) {
		return t.syntax("unexpected internal error: a trailing backslash")
	}
	c := t.src[t.i+1]
	t.i += 2
	set := func(body string, negate bool) {
		switch {
		case inClass && !negate:
			t.out.WriteString(body)
		case negate:
			t.out.WriteString("[^" + body + "]")
		default:
			t.out.WriteString("[" + body + "]")
		}
	}
	switch {
	case strings.IndexByte("dDsSwWtnrfaAzbB", c) >= 0:
		if inClass && strings.IndexByte("AzbB", c) >= 0 {
			return t.syntax("illegal escape \\%c in a character class", c)
		}
		t.out.WriteByte('\\')
		t.out.WriteByte(c)
	case c == 'p' || c == 'P':
		t.out.WriteByte('\\')
		t.out.WriteByte(c)
	case c == 'x':
		t.out.WriteString(`\x`)
	case c == 'Q':
		end := strings.Index(t.src[t.i:], `\E`)
		lit := t.src[t.i:]
		if end >= 0 {
			lit = t.src[t.i : t.i+end]
			t.i += end + 2
		} else {
			t.i = len(t.src)
		}
		t.out.WriteString(regexp.QuoteMeta(lit))
	case c == 'E':
		// A \E without \Q is ignored by Java.
	case c == 'e':
		t.out.WriteString(`\x1B`)
	case c == 'v':
		set(vertical, false)
	case c == 'V':
		if inClass {
			return t.unsupported(`\V inside a character class`)
		}
		set(vertical, true)
	case c == 'h':
		set(horizontal, false)
	case c == 'H':
		if inClass {
			return t.unsupported(`\H inside a character class`)
		}
		set(horizontal, true)
	case c == 'c':
		if t.i >= len(t.src) {
			return t.syntax(`illegal control escape sequence`)
		}
		fmt.Fprintf(&t.out, `\x{%x}`, t.src[t.i]^64)
		t.i++
	case c == 'u':
		if t.i+4 > len(t.src) {
			return t.syntax(`illegal Unicode escape sequence`)
		}
		n, err := strconv.ParseUint(t.src[t.i:t.i+4], 16, 32)
		if err != nil {
			return t.syntax(`illegal Unicode escape sequence`)
		}
		fmt.Fprintf(&t.out, `\x{%x}`, n)
		t.i += 4
	case c == '0':
		j := t.i
		for j < len(t.src) && j < t.i+3 && t.src[j] >= '0' && t.src[j] <= '7' {
			j++
		}
		if j == t.i {
			return t.syntax(`illegal octal escape sequence`)
		}
		n, _ := strconv.ParseUint(t.src[t.i:j], 8, 32)
		if n > 0377 {
			j--
			n, _ = strconv.ParseUint(t.src[t.i:j], 8, 32)
		}
		fmt.Fprintf(&t.out, `\x{%x}`, n)
		t.i = j
	case c >= '1' && c <= '9':
		if inClass {
			return t.syntax("illegal escape \\%c in a character class", c)
		}
		return t.unsupported(`a backreference (\` + string(c) + `)`)
	case c == 'k':
		return t.unsupported(`a named backreference (\k<name>)`)
	case c == 'G':
		return t.unsupported(`\G (the end of the previous match)`)
	case c == 'Z':
		return t.unsupported(`\Z (the end of input but for a final line break)`)
	case c == 'R':
		return t.unsupported(`\R (any line break sequence)`)
	case c == 'X':
		return t.unsupported(`\X (an extended grapheme cluster)`)
	case c == 'N':
		return t.unsupported(`\N{name}`)
	case (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
		return t.syntax("illegal/unsupported escape sequence \\%c", c)
	default:
		// Any other character escaped stands for itself.
		r := t.src[t.i-1:]
		n := 1
		if c >= 0x80 {
			for n < len(r) && r[n]&0xC0 == 0x80 {
				n++
			}
		}
		t.out.WriteString(regexp.QuoteMeta(r[:n]))
		t.i += n - 1
	}
	return nil
}

// Replacement translates a Java replacement string (Matcher.replaceAll:
// $n and ${name} name groups, a backslash makes the next character
// literal) into the template of regexp.Expand.
func Replacement(rep string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(rep); i++ {
		c := rep[i]
		switch {
		case c == '\\':
			if i+1 >= len(rep) {
				return "", fmt.Errorf("character to be escaped is missing")
			}
			i++
			if rep[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(rep[i])
			}
		case c == '$':
			if i+1 < len(rep) && rep[i+1] == '{' {
				end := strings.IndexByte(rep[i:], '}')
				if end < 0 {
					return "", fmt.Errorf("named capturing group is missing trailing '}'")
				}
				b.WriteString(rep[i : i+end+1])
				i += end
				continue
			}
			j := i + 1
			for j < len(rep) && rep[j] >= '0' && rep[j] <= '9' {
				j++
			}
			if j == i+1 {
				return "", fmt.Errorf("illegal group reference")
			}
			b.WriteString("${" + rep[i+1:j] + "}")
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// Cache keeps compiled patterns by their Java text, so a pattern given as
// a literal is compiled once rather than for every row. It holds at most
// a bounded number of entries and is safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[string]cached
}

type cached struct {
	re  *regexp.Regexp
	err error
}

// cacheSize bounds a Cache: a pattern taken from a column could otherwise
// hold one entry per row.
const cacheSize = 256

// Compile returns the compiled Java pattern, from the cache when it is
// there.
func (c *Cache) Compile(pattern string) (*regexp.Regexp, error) {
	return c.get("j"+pattern, func() (*regexp.Regexp, error) { return Compile(pattern) })
}

// CompileRE2 returns the compiled RE2 expression (already in Go's
// syntax), from the cache when it is there.
func (c *Cache) CompileRE2(expr string) (*regexp.Regexp, error) {
	return c.get("g"+expr, func() (*regexp.Regexp, error) { return regexp.Compile(expr) })
}

func (c *Cache) get(key string, compile func() (*regexp.Regexp, error)) (*regexp.Regexp, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		return e.re, e.err
	}
	re, err := compile()
	pattern := key
	if c.m == nil || len(c.m) >= cacheSize {
		c.m = map[string]cached{}
	}
	c.m[pattern] = cached{re, err}
	return re, err
}
