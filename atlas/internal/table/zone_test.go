package table

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestShowStringInZone: show() prints timestamps, also inside a struct,
// in the session time zone. 2021-11-07T09:30Z is 01:30 PST, the second
// 01:30 of that day in Los Angeles; 2021-07-01T19:00Z is 12:00 PDT.
func TestShowStringInZone(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	ts := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	st := arrow.StructOf(arrow.Field{Name: "t", Type: ts, Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: ts, Nullable: true}, {Name: "s", Type: st, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(time.Date(2021, 11, 7, 9, 30, 0, 0, time.UTC).UnixMicro()))
	sb := b.Field(1).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.TimestampBuilder).Append(arrow.Timestamp(time.Date(2021, 7, 1, 19, 0, 0, 0, time.UTC).UnixMicro()))
	rec := b.NewRecordBatch()
	defer rec.Release()
	recs := []arrow.RecordBatch{rec}

	got := ShowStringIn(la, schema, recs, 20, 0, false)
	for _, want := range []string{"2021-11-07 01:30:00", "{2021-07-01 12:00:00}"} {
		if !strings.Contains(got, want) {
			t.Errorf("ShowStringIn(Los Angeles) lacks %q:\n%s", want, got)
		}
	}
	if utc := ShowString(schema, recs, 20, 0, false); !strings.Contains(utc, "2021-11-07 09:30:00") || !strings.Contains(utc, "{2021-07-01 19:00:00}") {
		t.Errorf("ShowString (UTC):\n%s", utc)
	}
	if html := HTMLStringIn(la, schema, recs, 20, 0); !strings.Contains(html, "2021-11-07 01:30:00") {
		t.Errorf("HTMLStringIn(Los Angeles):\n%s", html)
	}
}
