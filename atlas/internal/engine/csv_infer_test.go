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
	if err := s.Read().Format("json").Option("inferSchema", "true").Load(dir).Err(); err == nil || !strings.Contains(err.Error(), "need a schema") {
		t.Errorf("json with inferSchema: %v, want a schema asked for", err)
	}
}
