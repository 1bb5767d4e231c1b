package atlas

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"

	atlaspb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaslite"
	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
)

// ErrNotConsole is returned by ConsoleOutput for a query whose sink is not
// the console.
var ErrNotConsole = errors.New("the query does not write to the console sink (writeStream.Format(\"console\"))")

// maxCellBatches bounds the batches the notebook cell's console block
// shows at once (the newest; the block says how many scrolled out), so an
// executed notebook stays small however long the cell waits.
const maxCellBatches = 50

// noConsoleNote is printed once, for a console query this handle started,
// when the server does not send console output to clients (Apache Spark,
// or an Atlas server before the extension): the batches are then only in
// the server's stdout.
const noConsoleNote = "(the server does not send console output to clients: it lacks Atlas's ConsoleOutput extension; the batches are in the server's stdout)\n"

// ConsoleOutput returns the last n micro-batches (n <= 0: all the server
// keeps) a console sink query printed, exactly as Spark's console sink
// prints them: the "Batch: N" header between dashed lines, show()'s table
// honouring the sink's numRows and truncate options, an empty line.
//
// It is an Atlas extension (Spark prints the console sink to the driver's
// stdout only): the Atlas server keeps the last atlas.console.retainedBatches
// (default 20) printed batches of each console query. The cell that waits
// on the query (AwaitTermination, Watch) prints them as they arrive; a
// later cell gets them back with
// spark.Streams().Get(name).ConsoleOutput(3). A server without the
// extension answers with an error.
func (q *StreamingQuery) ConsoleOutput(n int) (string, error) {
	if q == nil {
		return "", ErrNilQuery
	}
	ctx, cancel := shortCtx()
	defer cancel()
	res, err := q.consoleOutput(ctx, -1, n)
	if err != nil {
		return "", err
	}
	if !res.GetConsole() {
		return "", fmt.Errorf("query %s: %w", q.displayName(), ErrNotConsole)
	}
	var b strings.Builder
	for _, p := range res.GetBatches() {
		b.WriteString(p.GetText())
	}
	return b.String(), nil
}

// consoleOutput runs the atlas.connect.ConsoleOutput extension.
func (q *StreamingQuery) consoleOutput(ctx context.Context, after int64, limit int) (*atlaspb.ConsoleOutputResult, error) {
	b, err := (&atlaspb.ConsoleOutput{QueryId: q.id, AfterBatchId: after, Limit: int32(limit)}).MarshalVT()
	res := &atlaspb.ConsoleOutputResult{}
	if err := q.s.runExtension(ctx, atlaspb.TypeURLConsoleOutput, b, err, atlaspb.TypeURLConsoleOutputResult, res.UnmarshalVT); err != nil {
		return nil, fmt.Errorf("query %s: console output: %w", q.displayName(), err)
	}
	return res, nil
}

// consoleTail shows a console sink query's batches in the waiting cell as
// the server printed them: in a notebook as one block, updated in place,
// that sits above the live view's frame; elsewhere as plain text.
type consoleTail struct {
	q     *StreamingQuery
	out   view.Surface
	after int64 // the last batch shown
	off   bool  // not a console query, or the server lacks the extension
	id    string
	shown []string // the block's batches (a live surface)
	cut   int      // batches that scrolled out of the block
}

// newConsoleTail asks the server once whether q prints to the console and
// shows what it printed so far; it returns nil when there is nothing to
// follow. Call it before the live view's first frame, so the block comes
// first in the cell.
func newConsoleTail(ctx context.Context, q *StreamingQuery, out view.Surface) *consoleTail {
	if q.fb != nil {
		return nil // a foreachBatch query prints nothing of its own
	}
	t := &consoleTail{q: q, out: out, after: -1, id: "atlas_console_" + view.NewDOMID()}
	if !t.poll(ctx) {
		return nil
	}
	return t
}

// poll shows the batches printed since the last poll; it reports false
// once there is nothing to follow.
func (t *consoleTail) poll(ctx context.Context) bool {
	if t == nil || t.off {
		return false
	}
	res, err := t.q.consoleOutput(ctx, t.after, 0)
	switch {
	case err != nil && lacksExtension(err):
		t.off = true
		if t.q.console {
			fmt.Fprint(t.out.Text(), noConsoleNote)
		}
		return false
	case err != nil:
		return true // the server is slow or away: the next poll catches up
	case !res.GetConsole():
		t.off = true
		return false
	}
	var fresh []string
	if res.GetMissed() && t.after >= 0 {
		fresh = append(fresh, fmt.Sprintf("(batches after %d scrolled out of the server's last %d before this cell saw them)\n", t.after, res.GetRetainedBatches()))
	}
	for _, p := range res.GetBatches() {
		fresh = append(fresh, p.GetText())
		t.after = p.GetBatchId()
	}
	t.show(fresh)
	return true
}

// show adds texts to the cell.
func (t *consoleTail) show(texts []string) {
	if !t.out.HTML() {
		for _, s := range texts {
			fmt.Fprint(t.out.Text(), s)
		}
		return
	}
	if !t.out.Live() {
		if len(texts) > 0 {
			t.out.DisplayHTML(consolePre(strings.Join(texts, "")))
		}
		return
	}
	if len(texts) == 0 && t.shown != nil {
		return
	}
	t.shown = append(t.shown, texts...)
	if over := len(t.shown) - maxCellBatches; over > 0 {
		t.shown = append([]string(nil), t.shown[over:]...)
		t.cut += over
	}
	body := strings.Join(t.shown, "")
	if t.cut > 0 {
		body = fmt.Sprintf("(%d earlier batches scrolled out of this cell; the server keeps the last ones: q.ConsoleOutput(n))\n", t.cut) + body
	}
	if body == "" {
		body = "(waiting for the first batch)\n"
	}
	t.out.UpdateHTML(t.id, consolePre(body))
	if t.shown == nil {
		t.shown = []string{} // the block is on the page
	}
}

// finish shows the last batches once the cell stops waiting.
func (t *consoleTail) finish(ctx context.Context) {
	if t == nil {
		return
	}
	t.poll(ctx)
	if t.out.Live() && t.out.HTML() && len(t.shown) == 0 && t.cut == 0 && !t.off {
		t.out.UpdateHTML(t.id, consolePre("(no batch printed)\n"))
	}
	t.out.Sync()
}

// surface is where the cell's output of q goes.
func (q *StreamingQuery) surface() view.Surface {
	if q.out != nil {
		return q.out
	}
	return view.DetectSurface()
}

// consolePre is console text as an HTML block that keeps its layout.
func consolePre(text string) string {
	return `<pre class="atlas-console" style="margin:0">` + html.EscapeString(text) + `</pre>`
}
