package functions_test

import (
	"strings"
	"testing"
)

// TestRegexFunctions checks the regexp functions on the examples of
// Spark's documentation and on their edge cases (no match, a group that
// did not take part, positions in characters, Java replacement syntax).
func TestRegexFunctions(t *testing.T) {
	for e, want := range map[string]string{
		`regexp_count('Steven Jones and Stephen Smith are the best players', 'Ste(v|ph)en')`: "2",
		`regexp_count('abcdefghijklmnopqrstuvwxyz', '[a-z]{3}')`:                             "8",
		`regexp_extract('100-200', '(\\d+)-(\\d+)', 1)`:                                      "100",
		`regexp_extract('100-200', r'(\d+)-(\d+)', 2)`:                                       "200",
		`regexp_extract('100-200', '(\\d+)-(\\d+)')`:                                         "100",
		`regexp_extract('x', '(\\d+)|x', 1)`:                                                 "",
		`regexp_extract('abc', '\\d+', 0)`:                                                   "",
		`regexp_instr('user@spark.apache.org', '@[^.]*')`:                                    "5",
		`regexp_instr('héllo wörld', 'w')`:                                                   "7",
		`regexp_instr('abc', 'z')`:                                                           "0",
		`regexp_replace('100-200', '(\\d+)', 'num')`:                                         "num-num",
		`regexp_replace('100-200', '(\\d+)-(\\d+)', '$2-$1')`:                                "200-100",
		`regexp_replace('aaa', 'a', 'b', 2)`:                                                 "abb",
		`regexp_replace('abc', 'b', '\\$')`:                                                  "a$c",
		`regexp_substr('Steven Jones and Stephen Smith', 'Ste(v|ph)en')`:                     "Steven",
		`regexp_substr('Steven Jones', 'Jeck')`:                                              "NULL",
		`rlike('%SystemDrive%\\Users\\John', '%SystemDrive%\\\\Users.*')`:                    "true",
		`'a\nb' rlike 'a\\vb'`:                                                               "true",
		`'abc' RLIKE '^b'`:                                                                   "false",
		`'abc' NOT RLIKE '^b'`:                                                               "true",
	} {
		got, err := one(t, e)
		if err != nil {
			t.Errorf("SELECT %s: %v", e, err)
			continue
		}
		if got != want {
			t.Errorf("SELECT %s = %q, Spark gives %q", e, got, want)
		}
	}
	got, err := one(t, `regexp_extract_all('100-200, 300-400', '(\\d+)-(\\d+)', 2)`)
	if err != nil || got != `["200","400"]` {
		t.Errorf("regexp_extract_all = %q, %v; Spark gives [200, 400]", got, err)
	}
}

// TestRegexRefusals: Java constructs RE2 cannot run are refused with a
// message naming them, Java syntax errors with Spark's error class, and a
// group index out of range with REGEX_GROUP_INDEX.
func TestRegexRefusals(t *testing.T) {
	for e, want := range map[string]string{
		`'foobar' rlike 'foo(?=bar)'`:            "lookahead",
		`regexp_extract('aa', '(a)\\1', 1)`:      "backreference",
		`regexp_count('aaa', 'a++')`:             "possessive",
		`rlike('a', '(abc')`:                     "INVALID_PARAMETER_VALUE.PATTERN",
		`regexp_extract('100-200', '(\\d+)', 2)`: "REGEX_GROUP_INDEX",
		`'a' LIKE 'a\\b'`:                        "INVALID_FORMAT.ESC_IN_THE_MIDDLE",
		`'a' LIKE 'a/' ESCAPE '/'`:               "INVALID_FORMAT.ESC_AT_THE_END",
		`'a' LIKE 'a' ESCAPE '//'`:               "INVALID_ESCAPE_CHAR",
	} {
		_, err := one(t, e)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SELECT %s: got %v, want an error naming %s", e, err, want)
		}
	}
}

// TestLikePatterns checks LIKE, ILIKE and ESCAPE on Spark's examples: _ is
// one character (also a newline), % any number, the escape character
// quotes _, % and itself.
func TestLikePatterns(t *testing.T) {
	for e, want := range map[string]string{
		`like('Spark', '_park')`:  "true",
		`ilike('Spark', '_Park')`: "true",
		`'Spark' LIKE '_Park'`:    "false",
		`'%SystemDrive%/Users/John' like '/%SystemDrive/%//Users%' ESCAPE '/'`:  "true",
		`'%SystemDrive%/Users/John' ilike '/%SYSTEMDrive/%//Users%' ESCAPE '/'`: "true",
		`'%SystemDrive%\\Users\\John' like r'%SystemDrive%\\Users%'`:            "true",
		`'a_c' LIKE 'a\\_c'`:  "true",
		`'abc' LIKE 'a\\_c'`:  "false",
		"'a\nc' LIKE 'a_c'":   "true",
		`'a.c' LIKE 'a.c'`:    "true",
		`'abc' LIKE 'a.c'`:    "false",
		`'abc' NOT LIKE 'a%'`: "false",
		`NULL LIKE 'a'`:       "NULL",
	} {
		got, err := one(t, e)
		if err != nil {
			t.Errorf("SELECT %s: %v", e, err)
			continue
		}
		if got != want {
			t.Errorf("SELECT %s = %q, Spark gives %q", e, got, want)
		}
	}
}
