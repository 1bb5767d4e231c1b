package atlas

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
)

// consoleBatch0 and consoleBatch1 are the two micro-batches of
// startConsoleWords as Spark's ConsoleSink prints them, written by hand
// from Spark's format: the header between 43 dashes, show(numRows=2,
// truncate=true)'s table (columns at least 3 wide, right-aligned, strings
// longer than 20 cut to 17 characters and "...", the "only showing top 2
// rows" footer when rows are left out) and println's empty line.
const (
	consoleBatch0 = "-------------------------------------------\n" +
		"Batch: 0\n" +
		"-------------------------------------------\n" +
		"+--------------------+---+\n" +
		"|                   w|  n|\n" +
		"+--------------------+---+\n" +
		"|a-very-long-word-...|  1|\n" +
		"|                   b|  2|\n" +
		"+--------------------+---+\n" +
		"only showing top 2 rows\n" +
		"\n"
	consoleBatch1 = "-------------------------------------------\n" +
		"Batch: 1\n" +
		"-------------------------------------------\n" +
		"+---+---+\n" +
		"|  w|  n|\n" +
		"+---+---+\n" +
		"|  d|  4|\n" +
		"+---+---+\n" +
		"\n"
)

// startConsoleWords starts a console sink query (numRows 2) over two JSON
// files, one micro-batch each, that ends when both are read.
func startConsoleWords(t *testing.T, spark *Session) *StreamingQuery {
	t.Helper()
	dir := t.TempDir()
	files := []struct{ name, body string }{
		{"a.json", `{"w":"a-very-long-word-indeed-yes","n":1}` + "\n" + `{"w":"b","n":2}` + "\n" + `{"w":"c","n":3}` + "\n"},
		{"b.json", `{"w":"d","n":4}` + "\n"},
	}
	base := time.Now().Add(-time.Hour)
	for i, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	q, err := spark.ReadStream().Schema("w string, n bigint").Option("maxFilesPerTrigger", 1).JSON(dir).
		WriteStream().Format("console").Option("numRows", 2).QueryName("console_words").
		Trigger(AvailableNow()).Start()
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestConsoleOutputInTheWaitingCell: the cell that waits on a console
// sink query prints its batches exactly as Spark's console sink does, and
// a later handle gets the last one back with ConsoleOutput(1). On the old
// code the batches went to the server's stdout only: the cell printed
// nothing.
func TestConsoleOutputInTheWaitingCell(t *testing.T) {
	spark := internalServer(t)
	q := startConsoleWords(t, spark)
	rec := &displaytest.Recorder{}
	q.out = rec
	q.progress = false // the text live view would print progress lines too
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if got := rec.Out(); got != consoleBatch0+consoleBatch1 {
		t.Errorf("the cell printed:\n%q\nwant:\n%q", got, consoleBatch0+consoleBatch1)
	}
	later := spark.query(q.id, q.Name())
	last, err := later.ConsoleOutput(1)
	if err != nil || last != consoleBatch1 {
		t.Errorf("ConsoleOutput(1) = %q, %v; want %q", last, err, consoleBatch1)
	}
	all, err := later.ConsoleOutput(0)
	if err != nil || all != consoleBatch0+consoleBatch1 {
		t.Errorf("ConsoleOutput(0) = %q, %v", all, err)
	}
}

// TestConsoleOutputInANotebookBlock: in a notebook the batches go to one
// block, updated in place, whose last state holds every batch; and a
// query that does not print to the console has no block at all.
func TestConsoleOutputInANotebookBlock(t *testing.T) {
	spark := internalServer(t)
	q := startConsoleWords(t, spark)
	rec := &displaytest.Recorder{IsHTML: true, IsLive: true}
	q.out = rec
	q.progress = false
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	frames := rec.Frames()
	if len(frames) == 0 {
		t.Fatal("no console block in the cell")
	}
	last := frames[len(frames)-1]
	want := `<pre class="atlas-console" style="margin:0">` + html.EscapeString(consoleBatch0+consoleBatch1) + `</pre>`
	if last.HTML != want {
		t.Errorf("last block:\n%s\nwant:\n%s", last.HTML, want)
	}
	for _, f := range frames {
		if f.ID != frames[0].ID || !strings.HasPrefix(f.ID, "atlas_console_") {
			t.Fatalf("block ids %q and %q: want one block updated in place", frames[0].ID, f.ID)
		}
	}

	mem, err := spark.ReadStream().Format("rate").Load().WriteStream().Format("memory").QueryName("not_console").Start()
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Stop()
	if _, err := mem.ConsoleOutput(1); err == nil || !strings.Contains(err.Error(), "console sink") {
		t.Errorf("ConsoleOutput of a memory query: %v, want ErrNotConsole", err)
	}
	rec2 := &displaytest.Recorder{IsHTML: true, IsLive: true}
	mem.out = rec2
	mem.progress = false
	if ended, err := mem.AwaitTerminationTimeout(700 * time.Millisecond); ended || err != nil {
		t.Fatalf("memory query: ended %v, %v", ended, err)
	}
	if n := len(rec2.Frames()); n != 0 {
		t.Errorf("a memory query's cell got %d console blocks", n)
	}
}

// TestTimedAwaitIsNotALostConnection: the server has the same deadline
// as the client (Grpc-Timeout) and may end the stream first; a timed
// wait on a running query must still read "not ended", every time.
func TestTimedAwaitIsNotALostConnection(t *testing.T) {
	spark := internalServer(t)
	q, err := spark.ReadStream().Format("rate").Load().WriteStream().Format("memory").QueryName("timed_wait").Start()
	if err != nil {
		t.Fatal(err)
	}
	defer q.Stop()
	q.progress = false
	for i := range 60 {
		if ended, err := q.AwaitTerminationTimeout(time.Duration(20+i%7) * time.Millisecond); ended || err != nil {
			t.Fatalf("wait %d on a running query: ended %v, %v", i, ended, err)
		}
	}
}
