// Package enginetest holds the small helpers the engine's tests and the
// whole-house tests (package e2e) share: running SQL, reading rows and
// comparing them line by line. It is imported by tests only.
package enginetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// MustSQL runs q in s and fails the test, naming q, if it does not plan.
func MustSQL(t testing.TB, s *engine.Session, q string) *engine.DataFrame {
	t.Helper()
	df, err := s.SQL(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return df
}

// Rows collects df's rows, failing the test on an error.
func Rows(t testing.TB, df *engine.DataFrame) []engine.Row {
	t.Helper()
	rows, err := df.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Render prints rows as sorted "a=1 b=x" lines over cols, for exact
// comparisons.
func Render(rows []engine.Row, cols ...string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(cols))
		for j, c := range cols {
			parts[j] = fmt.Sprintf("%s=%v", c, r[c])
		}
		out[i] = strings.Join(parts, " ")
	}
	sort.Strings(out)
	return out
}

// SameLines fails the test unless got equals want once want is sorted
// (got comes sorted from [Render]).
func SameLines(t testing.TB, what string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\ngot\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// PaymentContractSchema is the Avro contract of the fraud tests'
// PaymentEvent records (three fields), as a producer outside Atlas
// registers it.
const PaymentContractSchema = `{"type":"record","name":"PaymentEvent","namespace":"fraudtwin","fields":[
 {"name":"event_id","type":"string"},{"name":"account","type":"long"},{"name":"amount","type":"double"}]}`

// KVSchema is the (id bigint, v string) schema of the merge and layout tests.
var KVSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// KVRecord builds an (id, v) record of rows, in the given order.
func KVRecord(ids []int64, v func(int64) string) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, KVSchema)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(v(id))
	}
	return b.NewRecordBatch()
}

// KVRows reads (id, v) records into a map, failing on a duplicate id.
func KVRows(t testing.TB, recs []arrow.RecordBatch) (map[int64]string, []int64) {
	t.Helper()
	out := map[int64]string{}
	var order []int64
	for _, r := range recs {
		ids, vs := r.Column(0).(*array.Int64), r.Column(1).(*array.String)
		for i := 0; i < int(r.NumRows()); i++ {
			if _, dup := out[ids.Value(i)]; dup {
				t.Fatalf("id %d is in the table twice", ids.Value(i))
			}
			out[ids.Value(i)] = vs.Value(i)
			order = append(order, ids.Value(i))
		}
	}
	return out, order
}
