package functions_test

import (
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	"github.com/atlas-lakehouse/atlas/atlas/internal/functions"
)

// TestRefusedGroups checks that one function of each group Atlas
// refuses fails with Spark's UNSUPPORTED_FEATURE and SQLSTATE 0A000,
// naming the function and its group, from SQL and from Spark Connect
// (there as the planner's UnsupportedError), instead of
// UNRESOLVED_ROUTINE.
func TestRefusedGroups(t *testing.T) {
	for call, want := range map[string]string{
		"parse_json('{\"a\":1}')":                                                "Atlas does not implement Spark's variant functions: parse_json",
		"xpath_string('<a><b>b</b></a>', 'a/b')":                                 "Atlas does not implement Spark's XML functions: xpath_string",
		"schema_of_avro('{\"type\": \"int\"}')":                                  "Atlas does not implement Spark's Avro functions: schema_of_avro",
		"to_protobuf(NULL, 'Person', '/p.desc')":                                 "Atlas does not implement Spark's Protobuf functions: to_protobuf",
		"st_srid(st_geomfromwkb(X'0101000000000000000000F03F0000000000000040'))": "Atlas does not implement Spark's spatial (ST) functions: st_",
		"vector_norm(array(CAST(3 AS FLOAT), CAST(4 AS FLOAT)))":                 "Atlas does not implement Spark's vector functions: vector_norm",
	} {
		_, err := one(t, call)
		if err == nil || !strings.Contains(err.Error(), "[UNSUPPORTED_FEATURE] "+want) || !strings.HasSuffix(err.Error(), "SQLSTATE: 0A000") {
			t.Errorf("%s: got %v, want UNSUPPORTED_FEATURE naming %q", call, err, want)
		}
	}
	for _, name := range []string{"variant_get", "from_xml", "from_protobuf", "st_asbinary", "vector_sum"} {
		err := viaConnect(name, 1)
		if !planner.IsUnsupported(err) || !strings.Contains(err.Error(), "[UNSUPPORTED_FEATURE]") || !strings.Contains(err.Error(), name) {
			t.Errorf("Connect %s: got %v, want an UnsupportedError naming it", name, err)
		}
	}
	if d, ok := functions.Lookup("xpath_int"); !ok || d.Group != "xml" {
		t.Errorf("xpath_int is not registered in the xml group")
	}
}
