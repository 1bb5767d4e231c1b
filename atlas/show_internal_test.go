package atlas

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	spb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/displaytest"
	"github.com/atlas-lakehouse/atlas/atlas/internal/table"
)

// TestShowIsRenderedByTheServer: DataFrame.Show draws what the server
// renders (HtmlString in a notebook, ShowString in a terminal), the same
// tables the renderer makes of the rows the client collects itself, with
// the rows of the table: 20 of 25 and the footer, the long note cut to 17
// characters and "..." with its full text on hover, NULL greyed; without
// truncation in a terminal, the full note.
func TestShowIsRenderedByTheServer(t *testing.T) {
	spark := internalServer(t)
	long := "a note longer than twenty characters"
	var vals []string
	for i := 1; i <= 25; i++ {
		note := fmt.Sprintf("'n%d'", i)
		switch i {
		case 3:
			note = "'" + long + "'"
		case 4:
			note = "NULL"
		}
		vals = append(vals, fmt.Sprintf("(%d, %s)", i, note))
	}
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.t",
		"CREATE TABLE lakehouse.t.notes (id bigint, note string) USING iceberg",
		"INSERT INTO lakehouse.t.notes VALUES " + strings.Join(vals, ", "),
	} {
		if _, err := spark.SQL(q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	df := spark.Table("lakehouse.t.notes").OrderBy("id")
	schema, recs, err := df.Limit(21).Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer releaseAll(recs)

	nb := &displaytest.Recorder{IsHTML: true, IsLive: true}
	if err := df.showOn(nb, 20, showTruncate); err != nil {
		t.Fatal(err)
	}
	if len(nb.Displays()) != 1 || nb.Syncs() != 1 {
		t.Fatalf("%d displays and %d syncs, want one of each", len(nb.Displays()), nb.Syncs())
	}
	got := nb.Displays()[0]
	if want := table.HTMLTable(schema, recs, 20, true, ""); got != want {
		t.Errorf("the notebook shows\n%s\nwant\n%s", got, want)
	}
	body := got[strings.Index(got, "<tbody>"):strings.Index(got, "</tbody>")]
	for _, want := range []string{`title="` + long + `">a note longer tha...</td>`, `<td class="null">NULL</td>`, `<td class="num">20</td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the table body lacks %q", want)
		}
	}
	if n := strings.Count(body, "<tr>"); n != 20 || strings.Contains(body, `<td class="num">21</td>`) || !strings.Contains(got, "only showing top 20 rows") {
		t.Errorf("the table has %d rows (want 1 to 20 and the footer)", n)
	}

	term := &displaytest.Recorder{}
	if err := df.showOn(term, 5, 0); err != nil {
		t.Fatal(err)
	}
	if want := table.TextTable(schema, recs, 5, false) + "\n"; term.Out() != want {
		t.Errorf("the terminal shows\n%q\nwant\n%q", term.Out(), want)
	}
	if !strings.Contains(term.Out(), "|3  |"+long+"|") || !strings.HasSuffix(term.Out(), "only showing top 5 rows\n\n") {
		t.Errorf("the untruncated text table:\n%s", term.Out())
	}
}

// showStringResponse is a ShowString answer: one row, one column
// show_string holding text.
func showStringResponse(text string) *spb.ExecutePlanResponse {
	schema := arrow.NewSchema([]arrow.Field{{Name: "show_string", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append(text)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
	if err := w.Write(rec); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	return &spb.ExecutePlanResponse{ResponseType: &spb.ExecutePlanResponse_ArrowBatch_{
		ArrowBatch: &spb.ExecutePlanResponse_ArrowBatch{RowCount: 1, Data: buf.Bytes()},
	}}
}

// TestShowWithoutHTMLStringShowsTheTextTable: a server without HtmlString
// (an older Atlas) gets the notebook its ShowString text, escaped and
// preformatted.
func TestShowWithoutHTMLStringShowsTheTextTable(t *testing.T) {
	text := "+---+\n|  s|\n+---+\n|<b>|\n+---+\n"
	old := &oldServer{progress: displaytest.Sample(), showText: text}
	q := startOld(t, old)
	nb := &displaytest.Recorder{IsHTML: true, IsLive: true}
	if err := q.s.Table("t").showOn(nb, 20, showTruncate); err != nil {
		t.Fatal(err)
	}
	if d := nb.Displays(); len(d) != 1 || d[0] != `<pre class="atlas-show">`+html.EscapeString(text)+`</pre>` {
		t.Fatalf("displays %q, want the escaped text table", d)
	}
}
