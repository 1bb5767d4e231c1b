package progress

import (
	"encoding/json"
	"testing"
)

// An unnamed query's progress JSON has "name": null, as Spark's
// StreamingQueryProgress.json (jsonString of a null name); a named one
// keeps its name, and the JSON reads back into the same value.
func TestProgressJSONNameIsNullWhenUnnamed(t *testing.T) {
	p := StreamingQueryProgress{ID: "i", RunID: "r", BatchID: 3}
	var m map[string]any
	if err := json.Unmarshal([]byte(p.JSON()), &m); err != nil {
		t.Fatal(err)
	}
	if v, ok := m["name"]; !ok || v != nil {
		t.Fatalf("unnamed query: name = %#v (present %v), want null", v, ok)
	}
	if m["batchId"] != float64(3) || m["id"] != "i" {
		t.Fatalf("other fields lost: %v", m)
	}
	p.Name = "counts"
	var back StreamingQueryProgress
	if err := json.Unmarshal([]byte(p.PrettyJSON()), &back); err != nil {
		t.Fatal(err)
	}
	if back.Name != "counts" || back.BatchID != 3 {
		t.Fatalf("round trip: %+v", back)
	}
}
