package functions

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/javaregex"
)

// regexDefs are the functions matching Java regular expressions (package
// javaregex) and SQL LIKE patterns.
func regexDefs() []*Def {
	withDefault := func(n int, def string) func(string, []string) string {
		return func(name string, a []string) string {
			if len(a) < n {
				a = append(a, def) // Spark names the default argument
			}
			return name + "(" + strings.Join(a, ", ") + ")"
		}
	}
	return []*Def{
		regexDef("rlike"), regexDef("regexp"), regexDef("regexp_like"),
		likeDef("like", false), likeDef("ilike", true),
		regexRow("regexp_count", 2, 2, tInt, nil, func(re *regexp.Regexp, s string, _ []any) (any, error) {
			return int32(len(re.FindAllStringIndex(s, -1))), nil
		}),
		regexRow("regexp_substr", 2, 2, tString, nil, func(re *regexp.Regexp, s string, _ []any) (any, error) {
			if loc := re.FindStringIndex(s); loc != nil {
				return s[loc[0]:loc[1]], nil
			}
			return nil, nil
		}),
		regexRow("regexp_extract", 2, 3, tString, withDefault(3, "1"), func(re *regexp.Regexp, s string, rest []any) (any, error) {
			g, err := groupIndex("regexp_extract", re, rest, 1)
			if err != nil {
				return nil, err
			}
			m := re.FindStringSubmatchIndex(s)
			if m == nil || m[2*g] < 0 {
				return "", nil
			}
			return s[m[2*g]:m[2*g+1]], nil
		}),
		regexRow("regexp_extract_all", 2, 3, arrow.ListOf(tString), withDefault(3, "1"), func(re *regexp.Regexp, s string, rest []any) (any, error) {
			g, err := groupIndex("regexp_extract_all", re, rest, 1)
			if err != nil {
				return nil, err
			}
			out := []any{}
			for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
				if m[2*g] < 0 {
					out = append(out, "")
				} else {
					out = append(out, s[m[2*g]:m[2*g+1]])
				}
			}
			return out, nil
		}),
		regexRow("regexp_instr", 2, 3, tInt, withDefault(3, "0"), func(re *regexp.Regexp, s string, rest []any) (any, error) {
			g, err := groupIndex("regexp_instr", re, rest, 0)
			if err != nil {
				return nil, err
			}
			m := re.FindStringSubmatchIndex(s)
			if m == nil || m[2*g] < 0 {
				return int32(0), nil
			}
			return int32(utf8.RuneCountInString(s[:m[2*g]]) + 1), nil
		}),
		regexpReplace(),
	}
}

// regexRow defines fn(str, regexp, more...) evaluated by f with the
// compiled pattern; more arguments are integers.
func regexRow(name string, minArgs, maxArgs int, out arrow.DataType, col func(string, []string) string,
	f func(re *regexp.Regexp, s string, rest []any) (any, error)) *Def {
	cache := &javaregex.Cache{}
	return &Def{Name: name, Group: "string", MinArgs: minArgs, MaxArgs: maxArgs, ColumnName: col, Build: rowBuild(&rowImpl{
		resolve: sig(out, tString, tString, tInt),
		eval: func(v []any) (any, error) {
			re, err := compileRegex(cache, name, v[1].(string))
			if err != nil {
				return nil, err
			}
			return f(re, v[0].(string), v[2:])
		}})}
}

// groupIndex is the group argument (rest[0], else def), checked against
// the pattern's groups as Spark does (REGEX_GROUP_INDEX).
func groupIndex(fn string, re *regexp.Regexp, rest []any, def int64) (int, error) {
	g := def
	if len(rest) > 0 {
		g = rest[0].(int64)
	}
	if g < 0 || g > int64(re.NumSubexp()) {
		return 0, fmt.Errorf("[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of parameter(s) `idx` in `%s` is invalid: Expects group index between 0 and %d, but got %d. SQLSTATE: 22023", fn, re.NumSubexp(), g)
	}
	return int(g), nil
}

// compileRegex compiles a Java pattern, with Spark's error for one Java
// rejects and a clear refusal for one RE2 cannot run.
func compileRegex(cache *javaregex.Cache, fn, pattern string) (*regexp.Regexp, error) {
	re, err := cache.Compile(pattern)
	if err == nil {
		return re, nil
	}
	var unsupported *javaregex.UnsupportedError
	if errors.As(err, &unsupported) {
		return nil, fmt.Errorf("[UNSUPPORTED_FEATURE] The feature is not supported: %s in `%s`. SQLSTATE: 0A000", err, fn)
	}
	return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter(s) `regexp` in `%s` is invalid: %s. SQLSTATE: 22023", fn, err)
}

// regexDef is rlike and its synonyms: a Java regular expression found
// anywhere in the string. Spark names them in upper case: RLIKE(s, re).
func regexDef(name string) *Def {
	cache := &javaregex.Cache{}
	return &Def{Name: name, Group: "predicate", MinArgs: 2, MaxArgs: 2, ColumnName: upperName, Build: rowBuild(&rowImpl{
		resolve: sig(tBool, tString, tString),
		eval: func(v []any) (any, error) {
			re, err := compileRegex(cache, name, v[1].(string))
			if err != nil {
				return nil, err
			}
			return re.MatchString(v[0].(string)), nil
		}})}
}

// regexpReplace is regexp_replace(str, regexp, rep[, position]): every
// match from position (1-based, in characters) on is replaced by rep, a
// Java replacement string ($1 names a group).
func regexpReplace() *Def {
	cache := &javaregex.Cache{}
	return &Def{Name: "regexp_replace", Group: "string", MinArgs: 3, MaxArgs: 4,
		ColumnName: func(name string, a []string) string {
			if len(a) < 4 {
				a = append(a, "1")
			}
			return name + "(" + strings.Join(a, ", ") + ")"
		},
		Build: rowBuild(&rowImpl{
			resolve: sig(tString, tString, tString, tString, tInt),
			eval: func(v []any) (any, error) {
				re, err := compileRegex(cache, "regexp_replace", v[1].(string))
				if err != nil {
					return nil, err
				}
				tmpl, err := javaregex.Replacement(v[2].(string))
				if err != nil {
					return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter(s) `rep` in `regexp_replace` is invalid: %s. SQLSTATE: 22023", err)
				}
				pos := int64(1)
				if len(v) == 4 {
					pos = v[3].(int64)
				}
				if pos <= 0 {
					return nil, fmt.Errorf("[INVALID_PARAMETER_VALUE] The value of parameter(s) `position` in `regexp_replace` is invalid: expects a positive value, but got %d. SQLSTATE: 22023", pos)
				}
				s := v[0].(string)
				start := runeOffset(s, int(pos-1))
				if start > len(s) {
					return s, nil
				}
				head, tail := s[:start], s[start:]
				var out []byte
				last := 0
				for _, m := range re.FindAllStringSubmatchIndex(tail, -1) {
					out = append(out, tail[last:m[0]]...)
					out = re.ExpandString(out, tmpl, tail, m)
					last = m[1]
				}
				out = append(out, tail[last:]...)
				return head + string(out), nil
			}})}
}

// runeOffset is the byte offset of the n-th character of s (len(s)+1
// when s is shorter).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	if n == 0 {
		return len(s)
	}
	return len(s) + 1
}

// likeDef is like and ilike: str LIKE pattern [ESCAPE 'c'], where _
// matches one character, % any number, and the escape character (a
// backslash by default) makes the next _, % or escape character literal.
// ilike ignores case. Spark names like(a, b) as "a LIKE b" (with
// " ESCAPE 'c'" for another escape character), ilike as ilike(a, b).
func likeDef(name string, fold bool) *Def {
	cache := &likeCache{}
	col := func(_ string, a []string) string {
		if name == "ilike" {
			return "ilike(" + a[0] + ", " + a[1] + ")"
		}
		s := a[0] + " LIKE " + a[1]
		if len(a) == 3 && a[2] != `\` {
			s += " ESCAPE '" + a[2] + "'"
		}
		return s
	}
	return &Def{Name: name, Group: "predicate", MinArgs: 2, MaxArgs: 3, ColumnName: col, Build: rowBuild(&rowImpl{
		resolve: sig(tBool, tString, tString, tString),
		eval: func(v []any) (any, error) {
			esc := `\`
			if len(v) == 3 {
				esc = v[2].(string)
			}
			re, err := cache.compile(v[1].(string), esc, fold)
			if err != nil {
				return nil, err
			}
			return re.MatchString(v[0].(string)), nil
		}})}
}

// likeCache keeps the regular expression of the last LIKE pattern.
type likeCache struct{ javaregex.Cache }

func (c *likeCache) compile(pattern, esc string, fold bool) (*regexp.Regexp, error) {
	if utf8.RuneCountInString(esc) != 1 {
		return nil, fmt.Errorf("[INVALID_ESCAPE_CHAR] The escape character must be a string literal of length one, got '%s'. SQLSTATE: 42604", esc)
	}
	re2, err := likeRegex(pattern, []rune(esc)[0])
	if err != nil {
		return nil, err
	}
	if fold {
		re2 = "(?i)" + re2
	}
	return c.Cache.CompileRE2(re2)
}

// likeRegex is Spark's StringUtils.escapeLikeRegex: the LIKE pattern as
// an anchored RE2 expression.
func likeRegex(pattern string, esc rune) (string, error) {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == esc:
			if i+1 >= len(rs) {
				return "", fmt.Errorf("[INVALID_FORMAT.ESC_AT_THE_END] The format is invalid: '%s'. The escape character is not allowed to end with. SQLSTATE: 42601", pattern)
			}
			n := rs[i+1]
			if n != '_' && n != '%' && n != esc {
				return "", fmt.Errorf("[INVALID_FORMAT.ESC_IN_THE_MIDDLE] The format is invalid: '%s'. The escape character is not allowed to precede '%c'. SQLSTATE: 42601", pattern, n)
			}
			b.WriteString(regexp.QuoteMeta(string(n)))
			i++
		case c == '_':
			b.WriteString(".")
		case c == '%':
			b.WriteString(".*")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return b.String(), nil
}
