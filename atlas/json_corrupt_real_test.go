package atlas_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestJSONCorruptRecordThroughTheClient: spark.read.json with Spark's parse
// modes over the protocol: PERMISSIVE fills _corrupt_record (given in the
// schema, or inferred because a line is malformed) with the line as
// written, DROPMALFORMED leaves the line out, FAILFAST fails with
// MALFORMED_RECORD_IN_PARSING (atlas.ErrMalformedRecord).
func TestJSONCorruptRecordThroughTheClient(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	ctx := context.Background()
	lines := []string{`{"id":1,"v":"a"}`, `{"id":2,"v":`, `{"id":3,"v":"c"}`}
	path := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	render := func(df *atlas.DataFrame) string {
		rows, err := df.Rows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprintf("%v %v %v", r["id"], r["v"], r["_corrupt_record"]))
		}
		sort.Strings(out)
		return strings.Join(out, "|")
	}
	want := "1 a <nil>|3 c <nil>|<nil> <nil> " + lines[1]
	if got := render(spark.Read().Schema("id bigint, v string, _corrupt_record string").JSON(path)); got != want {
		t.Errorf("PERMISSIVE with the column: %s, want %s", got, want)
	}
	if got := render(spark.Read().JSON(path)); got != want {
		t.Errorf("PERMISSIVE, inferred: %s, want %s", got, want)
	}
	if got := render(spark.Read().Option("mode", "DROPMALFORMED").JSON(path)); got != "1 a <nil>|3 c <nil>" {
		t.Errorf("DROPMALFORMED: %s", got)
	}
	_, err := spark.Read().Schema("id bigint, v string").Option("mode", "FAILFAST").JSON(path).Rows(ctx)
	if !errors.Is(err, atlas.ErrMalformedRecord) {
		t.Errorf("FAILFAST: %v, want atlas.ErrMalformedRecord", err)
	}
}
