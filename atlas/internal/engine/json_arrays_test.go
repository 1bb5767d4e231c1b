package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// TestReadJSONArrays: spark.read.json reads arrays of numbers, strings,
// structs and arrays, in a given schema and in the inferred one (Spark's
// JsonInferSchema: element types merged, an empty array's element a
// string, bigint and double widened to double, struct elements' fields
// merged and sorted). The reference is each line decoded by
// encoding/json and rendered the same way; a value that is not an array,
// or an element that does not fit, is null and fills _corrupt_record.
func TestReadJSONArrays(t *testing.T) {
	lines := []string{
		`{"id":1,"nums":[1,2,3],"tags":["a","b"],"kv":[{"k":"x","v":1.5},{"k":"y"}],"grid":[[1,2],[3]],"s":{"xs":[true,false]}}`,
		`{"id":2,"nums":[],"tags":null,"kv":[],"grid":[[]],"s":{"xs":[]}}`,
		`{"id":3,"nums":[4,null],"tags":["c"],"kv":[{"v":2}],"grid":[],"s":null}`,
		`{"id":4,"nums":"oops","tags":["d"]}`,
		`{"id":5,"nums":[1,"two"],"tags":["e",{"f":1}]}`,
	}
	path := filepath.Join(t.TempDir(), "arrays.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSession()
	ddl := "id bigint, nums array<bigint>, tags array<string>, kv array<struct<k: string, v: double>>, grid array<array<int>>, s struct<xs: array<boolean>>, _corrupt_record string"
	rows, err := s.Read().Format("json").Schema(ddl).Load(path).Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	for _, r := range rows {
		b, _ := json.Marshal(r)
		got[r["id"].(int64)] = string(b)
	}
	// The reference: the lines as encoding/json reads them, with the
	// fields the schema has, nulls for the absent ones, and per Spark the
	// malformed lines 4 and 5 null in the arrays that do not fit; a
	// string element may hold any JSON value as its text ({"f":1}).
	want := func(line string, patch map[string]any) string {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		out := map[string]any{"_corrupt_record": nil}
		for _, k := range []string{"id", "nums", "tags", "kv", "grid", "s"} {
			out[k] = m[k]
		}
		if kv, ok := out["kv"].([]any); ok {
			for _, e := range kv {
				em := e.(map[string]any)
				for _, f := range []string{"k", "v"} {
					if _, ok := em[f]; !ok {
						em[f] = nil
					}
				}
			}
		}
		for k, v := range patch {
			out[k] = v
		}
		b, _ := json.Marshal(out)
		return string(b)
	}
	wants := map[int64]string{
		1: want(lines[0], nil),
		2: want(lines[1], nil),
		3: want(lines[2], nil),
		4: want(lines[3], map[string]any{"nums": nil, "_corrupt_record": lines[3]}),
		5: want(lines[4], map[string]any{"nums": nil, "tags": []any{"e", `{"f":1}`}, "_corrupt_record": lines[4]}),
	}
	for id, w := range wants {
		if got[id] != w {
			t.Errorf("row %d:\n got %s\nwant %s", id, got[id], w)
		}
	}

	// Inference over the good lines.
	good := filepath.Join(t.TempDir(), "good.json")
	os.WriteFile(good, []byte(strings.Join(lines[:3], "\n")+"\n"+`{"id":6,"nums":[2.5],"tags":[]}`+"\n"), 0o644)
	df := s.Read().Format("json").Load(good)
	var fields []string
	for _, f := range df.Schema().Fields() {
		fields = append(fields, f.Name+" "+strings.ToLower(types.SQL(f.Type)))
	}
	wantSchema := "grid array<array<bigint>>, id bigint, kv array<struct<k: string, v: double>>, nums array<double>, s struct<xs: array<boolean>>, tags array<string>"
	if got := strings.Join(fields, ", "); got != wantSchema {
		t.Errorf("inferred schema\n got %s\nwant %s", got, wantSchema)
	}
	n, err := df.Count(context.Background())
	if err != nil || n != 4 {
		t.Errorf("inferred read: %d rows, %v", n, err)
	}
}
