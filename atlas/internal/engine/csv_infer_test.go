package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// TestReadCSVInferSchema: spark.read.option("header", true).option(
// "inferSchema", true).csv(...) types each column as Spark's
// CSVInferSchema does, over every line of every file: int, bigint
// (widened from int), double (widened from int), date, timestamp,
// boolean, a date and timestamp mix and a number and text mix as strings,
// an all-empty column as string. The types are worked out by hand from
// the lines. Without inferSchema every column stays a string.
func TestReadCSVInferSchema(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.csv", "i,l,d,dt,ts,b,mix,txt,empty\n"+
		"1,1,1,2026-03-01,2026-03-01 10:00:00,true,2026-03-01,7,\n"+
		"2,3000000000,2.5,2026-03-02,2026-03-01T11:30:00Z,false,2026-03-01 10:00:00,x,\n")
	write("b.csv", "i,l,d,dt,ts,b,mix,txt,empty\n"+
		"-3,,1e3,,2026-03-02 00:00:00,TRUE,,8,\n")
	s := NewSession()
	df := s.Read().Format("csv").Option("header", "true").Option("inferSchema", "true").Load(dir)
	schema, recs, err := df.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range schema.Fields() {
		got = append(got, f.Name+" "+strings.ToLower(types.SQL(f.Type)))
	}
	want := "i int, l bigint, d double, dt date, ts timestamp, b boolean, mix string, txt string, empty string"
	if strings.Join(got, ", ") != want {
		t.Errorf("schema\n got %s\nwant %s", strings.Join(got, ", "), want)
	}
	var rows []string
	for _, r := range recs {
		for i := range int(r.NumRows()) {
			var vals []string
			for c := range int(r.NumCols()) {
				vals = append(vals, r.Column(c).ValueStr(i))
			}
			rows = append(rows, strings.Join(vals, "|"))
		}
	}
	if len(rows) != 3 || !strings.HasPrefix(rows[0], "1|1|1|2026-03-01|") || !strings.HasPrefix(rows[2], "-3|(null)|1000|(null)|") {
		t.Errorf("rows %q", rows)
	}
	plain, _, err := s.Read().Format("csv").Option("header", "true").Option("inferSchema", "false").Load(dir).Collect(context.Background())
	if err != nil || plain.Field(0).Type.ID() != arrow.STRING || plain.Field(2).Type.ID() != arrow.STRING {
		t.Errorf("inferSchema=false: %v (%v), want strings", plain, err)
	}
}

// TestReadJSONInferSchema: spark.read.json without a schema infers it as
// Spark's JsonInferSchema does: Spark's own people.json example gives
// age bigint, name string (fields sorted by name); numbers of both kinds
// widen to double, a struct field seen as a number and as text is a
// string, a null-only field is a string, a field only ever {} is dropped,
// a line that is no object is skipped. Arrays are inferred as Spark
// infers them, which the JSON reader refuses by the field's name. The
// expected schemas are worked out by hand.
func TestReadJSONInferSchema(t *testing.T) {
	dir := t.TempDir()
	people := filepath.Join(dir, "people.json")
	if err := os.WriteFile(people, []byte(`{"name":"Michael"}
{"name":"Andy", "age":30}
{"name":"Justin", "age":19}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	mixed := filepath.Join(dir, "mixed.json")
	if err := os.WriteFile(mixed, []byte(`{"name":"a", "age":30, "addr":{"city":"Oslo","zip":1}}
{"name":"b", "age":19.5, "addr":{"zip":"x"}, "flag":true, "nil":null, "empty":{}}
not json
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSession()
	for _, c := range []struct{ path, want, rows string }{
		{people, "age bigint, name string", "(null) Michael|30 Andy|19 Justin"},
		// "not json" is malformed: PERMISSIVE inference adds the corrupt
		// record column, sorted first ('_' before letters), as Spark does.
		{mixed, "_corrupt_record string, addr struct<city: string, zip: string>, age double, flag boolean, name string, nil string", ""},
	} {
		schema, recs, err := s.Read().Format("json").Load(c.path).Collect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range schema.Fields() {
			got = append(got, f.Name+" "+strings.ToLower(types.SQL(f.Type)))
		}
		if strings.Join(got, ", ") != c.want {
			t.Errorf("%s schema\n got %s\nwant %s", filepath.Base(c.path), strings.Join(got, ", "), c.want)
		}
		if c.rows == "" {
			continue
		}
		var rows []string
		for _, r := range recs {
			for i := range int(r.NumRows()) {
				rows = append(rows, r.Column(0).ValueStr(i)+" "+r.Column(1).ValueStr(i))
			}
		}
		if strings.Join(rows, "|") != c.rows {
			t.Errorf("%s rows %q, want %q", filepath.Base(c.path), rows, c.rows)
		}
	}
	arrays := filepath.Join(t.TempDir(), "arrays.json")
	if err := os.WriteFile(arrays, []byte(`{"id":1, "tags":["x"]}`+"\n"+`{"id":2, "tags":[]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	df := s.Read().Format("json").Load(arrays)
	if got := df.SchemaString(); !strings.Contains(got, "tags") || df.Err() != nil {
		t.Errorf("arrays: schema %s, err %v", got, df.Err())
	}
}
