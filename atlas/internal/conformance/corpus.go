package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Case is one example of the corpus: a query and what Spark returned.
type Case struct {
	// Group is the function group, the corpus file's name (agg, array, ...).
	Group string
	// Query is the SQL text, without its trailing semicolon.
	Query string
	// Result holds one line per row, columns separated by tabs, in Spark's
	// Hive-style result format.
	Result []string
	// Columns are the result's columns as Spark named and typed them.
	Columns []Column
}

// Column is a result column of Spark's schema.
type Column struct {
	Name string
	// Type is the canonical type string (see TypeString).
	Type     string
	Nullable bool
}

type corpusFile struct {
	Tests []struct {
		Query  string          `json:"query"`
		Result []string        `json:"result"`
		Schema json.RawMessage `json:"schema"`
	} `json:"tests"`
}

type jsonField struct {
	Name     string          `json:"name"`
	Type     json.RawMessage `json:"type"`
	Nullable bool            `json:"nullable"`
}

// Load reads every function/*.json file under dir, sorted by group.
func Load(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "function", "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list the corpus: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no function/*.json files under %s", dir)
	}
	sort.Strings(files)
	var out []Case
	for _, f := range files {
		cs, err := loadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

func loadFile(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var cf corpusFile
	if err := json.Unmarshal(data, &cf); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	group := strings.TrimSuffix(filepath.Base(path), ".json")
	out := make([]Case, 0, len(cf.Tests))
	for i, t := range cf.Tests {
		var schema struct {
			Fields []jsonField `json:"fields"`
		}
		if err := json.Unmarshal(t.Schema, &schema); err != nil {
			return nil, fmt.Errorf("%s test %d: schema: %w", path, i, err)
		}
		c := Case{Group: group, Query: strings.TrimSuffix(strings.TrimSpace(t.Query), ";"), Result: t.Result}
		for _, f := range schema.Fields {
			typ, err := jsonTypeString(f.Type)
			if err != nil {
				return nil, fmt.Errorf("%s test %d: column %s: %w", path, i, f.Name, err)
			}
			c.Columns = append(c.Columns, Column{Name: f.Name, Type: typ, Nullable: f.Nullable})
		}
		out = append(out, c)
	}
	return out, nil
}

// nondeterministic matches the examples whose result differs from run to
// run or from machine to machine in Spark itself (random numbers, random
// UUIDs and IVs, the clock, the current user, the Spark version): they
// count as "runs", not as exact matches.
var nondeterministic = regexp.MustCompile(`(?i)\b(rand|randn|random|uniform|randstr|uuid|shuffle|current_date|current_time|current_timestamp|curdate|now|localtimestamp|current_user|user|session_user|version)\b\s*(\(|;|$)|randomUUID|unix_timestamp\(\)`)

// Deterministic reports whether Spark returns the same result for q every
// time: aes_encrypt draws a random IV unless the mode is ECB or the IV is given.
func Deterministic(q string) bool {
	if strings.Contains(strings.ToLower(q), "aes_encrypt(") && !strings.Contains(q, "ECB") && !strings.Contains(q, "unhex('0000") {
		return false
	}
	return !nondeterministic.MatchString(q)
}

// Ordered reports whether the query fixes its row order (an ORDER BY);
// the rows of other queries are compared as multisets.
func Ordered(q string) bool {
	return strings.Contains(strings.ToUpper(q), "ORDER BY")
}
