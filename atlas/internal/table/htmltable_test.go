package table

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestHTMLTableEscapes(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "name<b>", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{`<script>alert("x")</script>`, "a&b", ""}, []bool{true, true, false})
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	got := HTMLTable(schema, []arrow.RecordBatch{rec}, 2, false, `windows "closed" <latest>`)
	for _, bad := range []string{"<script>", "name<b>", `<latest>`} {
		if strings.Contains(got, bad) {
			t.Errorf("HTMLTable left %q unescaped:\n%s", bad, got)
		}
	}
	want := []string{
		`<caption>windows &#34;closed&#34; &lt;latest&gt;</caption>`,
		`<th>name&lt;b&gt;</th><th>n</th>`,
		`<tr><td>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</td><td class="num">1</td></tr>`,
		`<tr><td>a&amp;b</td><td class="num">2</td></tr>`,
		`only showing top 2 rows`,
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("HTMLTable lacks %q:\n%s", w, got)
		}
	}
	body := got[strings.Index(got, "<tbody>"):strings.Index(got, "</tbody>")]
	if n := strings.Count(body, "<tr>"); n != 2 {
		t.Errorf("HTMLTable shows %d data rows, want 2 (maxRows)", n)
	}
	all := HTMLTable(schema, []arrow.RecordBatch{rec}, -1, false, "")
	if !strings.Contains(all, `<td class="null">NULL</td>`) || strings.Contains(all, "<caption>") || strings.Contains(all, "only showing") {
		t.Errorf("HTMLTable(all rows, no caption) wrong:\n%s", all)
	}
}

func TestHTMLTableTruncateKeepsFullTextInTitle(t *testing.T) {
	got := HTMLTable(windowSchema, sampleRecords(t), -1, true, "")
	if !strings.Contains(got, `<td title="United Kingdom of Great Britain">United Kingdom of...</td>`) {
		t.Fatalf("truncated cell lacks its title:\n%s", got)
	}
}
