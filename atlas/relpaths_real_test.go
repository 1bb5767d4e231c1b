package atlas_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// spawnServerIn starts a server child on home, working in dir (as the
// daemon `atlas up` starts works in its own directory), and returns its
// address.
func spawnServerIn(t *testing.T, home, dir string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envServerChild+"="+home, envServerChild+"_BROKERS=")
	log := &syncBuffer{}
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(30 * time.Second):
		t.Fatalf("the server child did not start; log:\n%s", log.String())
		return ""
	}
}

// TestRelativePathsMeanTheClientsDirectory: a relative path means the
// client program's working directory (the notebook's), for readers and
// writers alike, whatever the server's working directory: a batch
// DataFrame written with Write().Parquet("lake/txns") or
// Write().Option("path", ...).Save(""), a stream written with
// Option("path", "lake/stream") and its relative checkpointLocation, and
// read back with Read().Parquet("lake/txns") or Read().Option("path",
// ...).Load() all land in, and come from, the client's directory; nothing
// is written in the server's. On the old code the batch writer's and the
// path options' relative paths went to the server as they were, and the
// server resolved them in its own directory.
func TestRelativePathsMeanTheClientsDirectory(t *testing.T) {
	serverDir, clientDir, home := t.TempDir(), t.TempDir(), t.TempDir()
	addr := spawnServerIn(t, home, serverDir)
	t.Chdir(clientDir)
	spark := connect(t, addr)
	ctx := context.Background()

	if err := os.MkdirAll("in", 0o755); err != nil {
		t.Fatal(err)
	}
	writeEvents(t, "in", "1.json", 0, 7)
	batch := spark.Read().Schema("id bigint, event string").JSON("in")
	if err := batch.Write().Parquet("lake/txns"); err != nil {
		t.Fatal(err)
	}
	if err := batch.Write().Format("json").Option("path", "lake/opt").Save(""); err != nil {
		t.Fatal(err)
	}
	q, err := spark.ReadStream().Schema("id bigint, event string").JSON("in").WriteStream().
		Format("parquet").Option("path", "lake/stream").Option("checkpointLocation", "ck/stream").
		Trigger(atlas.AvailableNow()).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		df   *atlas.DataFrame
	}{
		{`Read().Parquet("lake/txns")`, spark.Read().Parquet("lake/txns")},
		{`Read().Format("json").Option("path", "lake/opt").Load()`, spark.Read().Format("json").Schema("id bigint, event string").Option("path", "lake/opt").Load()},
		{`Read().Parquet("lake/stream")`, spark.Read().Parquet("lake/stream")},
		{`Read().Format("parquet").Option("path", "lake/stream").Load()`, spark.Read().Format("parquet").Option("path", "lake/stream").Load()},
	} {
		n, err := c.df.Count(ctx)
		if err != nil || n != 7 {
			t.Errorf("%s: %d rows, %v; want the 7 rows written there", c.what, n, err)
		}
	}
	for _, dir := range []string{"lake/txns", "lake/opt", "lake/stream", "ck/stream/commits"} {
		ents, err := os.ReadDir(filepath.Join(clientDir, dir))
		if err != nil || len(ents) == 0 {
			t.Errorf("nothing in the client's %s: %v", dir, err)
		}
	}
	if ents, _ := os.ReadDir(serverDir); len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the server wrote in its own directory: %s", strings.Join(names, " "))
	}
}
