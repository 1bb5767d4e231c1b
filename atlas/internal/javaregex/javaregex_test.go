package javaregex

import (
	"errors"
	"strings"
	"testing"
)

// TestTranslateMatchesJava checks patterns whose Java meaning RE2 spells
// differently: the matches are Java's (java.util.regex.Pattern docs).
func TestTranslateMatchesJava(t *testing.T) {
	for _, c := range []struct {
		pattern, input string
		want           bool
	}{
		{`\h+x`, "\u00a0 x", true},       // \h: horizontal white space
		{`a\vb`, "a\nb", true},           // \v: vertical white space in Java, not only VT
		{`a\Vb`, "a\nb", false},          // \V: not vertical white space
		{`\e`, "\x1b", true},             // \e: escape
		{`\cA`, "\x01", true},            // \cA: control-A
		{`\u00e9`, "é", true},            // \uhhhh
		{`\0101`, "A", true},             // octal
		{`\Qa.b\E`, "a.b", true},         // quoted
		{`\Qa.b\E`, "axb", false},        // quoted: '.' is literal
		{`(?<y>\d{4})`, "in 2024", true}, // named group
		{`[]a]`, "]", true},              // ']' first in a class is literal
		{`(?iu)abc`, "ABC", true},        // flags: u is accepted
		{`a\.b`, "a.b", true},
		{`\d+-\d+`, "100-200", true},
	} {
		re, err := Compile(c.pattern)
		if err != nil {
			t.Errorf("Compile(%q): %v", c.pattern, err)
			continue
		}
		if got := re.MatchString(c.input); got != c.want {
			t.Errorf("%q matching %q: got %v, Java gives %v", c.pattern, c.input, got, c.want)
		}
	}
}

// TestRefusesWhatRE2CannotRun: each construct is valid Java that RE2 has
// no equivalent for; it must be refused naming the construct, never
// compiled into something that matches differently.
func TestRefusesWhatRE2CannotRun(t *testing.T) {
	for pattern, construct := range map[string]string{
		`foo(?=bar)`:      "lookahead",
		`foo(?!bar)`:      "lookahead",
		`(?<=a)b`:         "lookbehind",
		`(?<!a)b`:         "lookbehind",
		`(a)\1`:           "backreference",
		`(?<x>a)\k<x>`:    "named backreference",
		`a++`:             "possessive",
		`a{2}+`:           "possessive",
		`(?>a|ab)c`:       "atomic group",
		`[a-z&&[^aeiou]]`: "intersection",
		`[a[bc]]`:         "nested character class",
		`\Gx`:             `\G`,
		`a\Z`:             `\Z`,
		`\R`:              `\R`,
		`(?x) a b`:        "comments flag",
	} {
		_, err := Compile(pattern)
		var u *UnsupportedError
		if !errors.As(err, &u) {
			t.Errorf("Compile(%q) = %v, want an UnsupportedError", pattern, err)
			continue
		}
		if !strings.Contains(err.Error(), construct) {
			t.Errorf("Compile(%q): %q does not name %q", pattern, err, construct)
		}
	}
}

// TestSyntaxErrors: patterns Java rejects too are syntax errors.
func TestSyntaxErrors(t *testing.T) {
	for _, p := range []string{`(abc`, `[abc`, `\y`, `a{`, `*a`} {
		_, err := Compile(p)
		var s *SyntaxError
		if !errors.As(err, &s) {
			t.Errorf("Compile(%q) = %v, want a SyntaxError", p, err)
		}
	}
}

// TestReplacement: Java's $n and \$ in a replacement string.
func TestReplacement(t *testing.T) {
	re, err := Compile(`(\d+)-(\d+)`)
	if err != nil {
		t.Fatal(err)
	}
	for rep, want := range map[string]string{
		`$2-$1`: "200-100",
		`\$1`:   "$1",
		`${1}x`: "100x",
		`n$1$2`: "n100200",
		`a\\b`:  `a\b`,
	} {
		tmpl, err := Replacement(rep)
		if err != nil {
			t.Errorf("Replacement(%q): %v", rep, err)
			continue
		}
		if got := re.ReplaceAllString("100-200", tmpl); got != want {
			t.Errorf("replace with %q: got %q, Java gives %q", rep, got, want)
		}
	}
	if _, err := Replacement(`$x`); err == nil {
		t.Error(`Replacement("$x") is Java's "illegal group reference"`)
	}
}

// TestCacheBounded: a pattern per row does not grow the cache without end.
func TestCacheBounded(t *testing.T) {
	var c Cache
	for i := 0; i < 3*cacheSize; i++ {
		if _, err := c.Compile(strings.Repeat("a", i%50) + string(rune('a'+i%26)) + "x{" + string(rune('0'+i%10)) + "}"); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.m) > cacheSize {
		t.Fatalf("cache holds %d entries, bound %d", len(c.m), cacheSize)
	}
}
