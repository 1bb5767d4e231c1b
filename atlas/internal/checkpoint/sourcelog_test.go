package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestSourceLog: a source's own log lives at sources/<i>/, lists its files
// (not those of another source), refuses to overwrite a file with other
// content, and deletes.
func TestSourceLog(t *testing.T) {
	ctx := context.Background()
	ck, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ck.Close()
	if err := ck.WriteInitialOffset(ctx, 1, "x"); err != nil {
		t.Fatal(err)
	}
	log := ck.SourceLog(0)
	for _, n := range []string{"0", "1", "9.compact"} {
		if err := log.Add(ctx, n, []byte("v1\n"+n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := log.Add(ctx, "1", []byte("v1\n1")); err != nil {
		t.Fatalf("rewriting the same content: %v", err)
	}
	if err := log.Add(ctx, "1", []byte("v1\nother")); err == nil || !strings.Contains(err.Error(), "another query") {
		t.Fatalf("overwriting: %v", err)
	}
	if err := log.Delete(ctx, "0"); err != nil {
		t.Fatal(err)
	}
	if err := log.Delete(ctx, "missing"); err != nil {
		t.Fatal(err)
	}
	names, err := log.List(ctx)
	sort.Strings(names)
	if err != nil || fmt.Sprint(names) != "[1 9.compact]" {
		t.Fatalf("list %v %v", names, err)
	}
	if d, ok, err := log.Get(ctx, "9.compact"); err != nil || !ok || string(d) != "v1\n9.compact" {
		t.Fatalf("get %q %v %v", d, ok, err)
	}
	if _, err := os.Stat(filepath.Join(ck.Location(), "sources", "0", "9.compact")); err != nil {
		t.Fatal(err)
	}
}
