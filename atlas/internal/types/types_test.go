package types

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestParseDDL(t *testing.T) {
	s, err := ParseDDL("user_id string, event STRING, ts timestamp, n bigint NOT NULL")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name string
		id   arrow.Type
		null bool
	}{{"user_id", arrow.STRING, true}, {"event", arrow.STRING, true}, {"ts", arrow.TIMESTAMP, true}, {"n", arrow.INT64, false}}
	if s.NumFields() != len(want) {
		t.Fatalf("got %d fields", s.NumFields())
	}
	for i, w := range want {
		f := s.Field(i)
		if f.Name != w.name || f.Type.ID() != w.id || f.Nullable != w.null {
			t.Errorf("field %d = %v, want %+v", i, f, w)
		}
	}
}

func TestParseDDLErrors(t *testing.T) {
	for ddl, msg := range map[string]string{
		"a string, b":        "needs a name and a type",
		"a strang":           "unknown type \"strang\"",
		"a string, a int":    "appears twice",
		"a string,":          "is empty",
		"a string not nulls": "unexpected",
	} {
		_, err := ParseDDL(ddl)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseDDL(%q) = %v, want error containing %q", ddl, err, msg)
		}
	}
}

func TestTreeString(t *testing.T) {
	s, _ := ParseDDL("user_id string, ts timestamp")
	got := TreeString(s)
	want := "root\n |-- user_id: string (nullable = true)\n |-- ts: timestamp (nullable = true)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
