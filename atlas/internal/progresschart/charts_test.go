package progresschart

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFinishOptionEscapesScriptEnd(t *testing.T) {
	got, err := FinishOption(`{"title":{"text":"a</script>b"}}`, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "</") {
		t.Fatalf("option keeps </: %s", got)
	}
	var back struct {
		Title struct{ Text string } `json:"title"`
	}
	if err := json.Unmarshal([]byte(got), &back); err != nil || back.Title.Text != "a</script>b" {
		t.Fatalf("escaped option does not parse back: %v %q", err, back.Title.Text)
	}
}
