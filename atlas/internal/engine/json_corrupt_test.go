package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// corruptLines is a JSON Lines file with two good records, one whose age
// does not fit bigint, one truncated and one that is not JSON; the tests
// work out what each mode gives from these lines by hand.
var corruptLines = []string{
	`{"name":"a","age":1}`,
	`{"name":"b","age":"old"}`,
	`{"name":"c","age":3`,
	`not json`,
	`{"name":"e","age":5}`,
}

func writeCorrupt(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "people.json")
	if err := os.WriteFile(p, []byte(strings.Join(corruptLines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func renderRows(t *testing.T, df *DataFrame, cols ...string) []string {
	t.Helper()
	rows, err := df.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		var parts []string
		for _, c := range cols {
			parts = append(parts, fmt.Sprint(r[c]))
		}
		out = append(out, strings.Join(parts, "|"))
	}
	sort.Strings(out)
	return out
}

// TestReadJSONCorruptRecord: Spark's parse modes over malformed lines.
// PERMISSIVE fills columnNameOfCorruptRecord with the line when the
// schema has the column (keeping the fields that parsed, as Spark 3.4+'s
// partial results do), under the default name and a chosen one;
// DROPMALFORMED leaves the lines out; FAILFAST fails with
// MALFORMED_RECORD_IN_PARSING; a corrupt column that is not a string is
// INVALID_CORRUPT_RECORD_TYPE; and inference adds the column only when a
// line is malformed.
func TestReadJSONCorruptRecord(t *testing.T) {
	path := writeCorrupt(t)
	s := NewSession()
	same := func(what string, got, want []string) {
		t.Helper()
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", what, got, want)
		}
	}
	nul := "<nil>"
	permissive := []string{
		"a|1|" + nul, "b|" + nul + "|" + corruptLines[1], nul + "|" + nul + "|" + corruptLines[2],
		nul + "|" + nul + "|" + corruptLines[3], "e|5|" + nul,
	}
	df := s.Read().Format("json").Schema("name string, age bigint, _corrupt_record string").Load(path)
	same("PERMISSIVE, default column", renderRows(t, df, "name", "age", "_corrupt_record"), permissive)
	df = s.Read().Format("json").Schema("bad string, name string, age bigint").Option("columnNameOfCorruptRecord", "bad").Load(path)
	same("PERMISSIVE, named column first", renderRows(t, df, "name", "age", "bad"), permissive)
	df = s.Read().Format("json").Schema("name string, age bigint").Load(path)
	same("PERMISSIVE, no column", renderRows(t, df, "name", "age"), []string{"a|1", "b|" + nul, nul + "|" + nul, nul + "|" + nul, "e|5"})
	df = s.Read().Format("json").Schema("name string, age bigint, _corrupt_record string").Option("mode", "DROPMALFORMED").Load(path)
	same("DROPMALFORMED", renderRows(t, df, "name", "age", "_corrupt_record"), []string{"a|1|" + nul, "e|5|" + nul})

	_, err := s.Read().Format("json").Schema("name string, age bigint").Option("mode", "FAILFAST").Load(path).Rows(context.Background())
	if e, ok := sparkerr.As(err); !ok || e.Class != "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION" || e.State() != "22023" || e.Params["badRecord"] != corruptLines[1] {
		t.Errorf("FAILFAST: %v, want MALFORMED_RECORD_IN_PARSING (22023) naming line 2", err)
	}
	err = s.Read().Format("json").Schema("name string, _corrupt_record int").Load(path).Err()
	if e, ok := sparkerr.As(err); !ok || e.Class != "INVALID_CORRUPT_RECORD_TYPE" {
		t.Errorf("int corrupt column: %v, want INVALID_CORRUPT_RECORD_TYPE", err)
	}

	// Inference: the malformed lines add the column; DROPMALFORMED does not
	// and leaves them out; a clean file has no such column.
	df = s.Read().Format("json").Load(path)
	if got := df.Schema().String(); !strings.Contains(df.SchemaString(), "_corrupt_record") {
		t.Errorf("inferred schema %s lacks _corrupt_record", got)
	}
	if names := df.Schema().Fields(); names[0].Name != "_corrupt_record" || names[1].Name != "age" || names[2].Name != "name" {
		t.Errorf("inferred columns %v, want _corrupt_record, age, name", names)
	}
	// age is a string: "old" and 1 merge to string in inference.
	same("inferred, PERMISSIVE", renderRows(t, df, "name", "age", "_corrupt_record"), []string{
		"a|1|" + nul, "b|old|" + nul, nul + "|" + nul + "|" + corruptLines[2], nul + "|" + nul + "|" + corruptLines[3], "e|5|" + nul,
	})
	df = s.Read().Format("json").Option("mode", "DROPMALFORMED").Load(path)
	if strings.Contains(df.SchemaString(), "_corrupt_record") {
		t.Errorf("DROPMALFORMED inference added the column: %s", df.SchemaString())
	}
	same("inferred, DROPMALFORMED", renderRows(t, df, "name", "age"), []string{"a|1", "b|old", "e|5"})
	err = s.Read().Format("json").Option("mode", "FAILFAST").Load(path).Err()
	if e, ok := sparkerr.As(err); !ok || !strings.HasPrefix(e.Class, "MALFORMED_RECORD_IN_PARSING") {
		t.Errorf("FAILFAST inference: %v, want MALFORMED_RECORD_IN_PARSING", err)
	}
	clean := filepath.Join(t.TempDir(), "clean.json")
	os.WriteFile(clean, []byte(corruptLines[0]+"\n"+corruptLines[4]+"\n"), 0o644)
	if sc := s.Read().Format("json").Load(clean).SchemaString(); strings.Contains(sc, "_corrupt_record") {
		t.Errorf("clean file: %s", sc)
	}
}
