package kafka

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestPrunedColumnsComeAsNulls reads the same batches with every column,
// with only value (what the events scenario reads) and with key and
// timestamp, through fetching ahead: the columns read hold exactly what
// was produced, the others are all null with the schema unchanged, and the
// records' buffered size counts only the columns built.
func TestPrunedColumnsComeAsNulls(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(3, "events"))
	all := produce(t, ctx, addr, "events", "p", map[int32]int{0: 700, 1: 500, 2: 900})

	for _, tc := range []struct {
		name string
		read []bool // key, value, topic, partition, offset, timestamp, timestampType
	}{
		{"all", nil},
		{"value", []bool{false, true, false, false, false, false, false}},
		{"key and timestamp", []bool{true, false, false, false, false, true, false}},
		{"topic, partition, timestampType", []bool{false, false, true, true, false, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := mustNew(t, map[string]string{
				"kafka.bootstrap.servers": addr, "subscribe": "events",
				"startingOffsets": "earliest", "maxOffsetsPerTrigger": "600",
			})
			if tc.read != nil {
				src.PruneColumns(tc.read)
			}
			reads := func(col int) bool { return tc.read == nil || tc.read[col] || col == colOffset }
			start, err := src.InitialOffset(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var got []row
			for batch := 0; batch < 4; batch++ {
				end, err := src.LatestOffset(ctx, start)
				if err != nil {
					t.Fatal(err)
				}
				err = src.GetBatch(ctx, start, end, func(rec arrow.RecordBatch) error {
					if !rec.Schema().Equal(Schema) {
						t.Fatalf("record schema %v, want Schema", rec.Schema())
					}
					for col := 0; col < numColumns; col++ {
						if n := rec.Column(col).NullN(); !reads(col) && n != int(rec.NumRows()) {
							t.Fatalf("column %s not read but has %d non-null rows of %d", Schema.Field(col).Name, int(rec.NumRows())-n, rec.NumRows())
						}
					}
					got = append(got, partialRows(rec, reads)...)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := src.Commit(ctx, end); err != nil {
					t.Fatal(err)
				}
				start = end
			}
			want := make([]row, len(all))
			for i, r := range all {
				want[i] = maskRow(r, reads)
			}
			sameMultiset(t, tc.name, got, want)
		})
	}
}

// TestPrunedChunksCountOnlyBuiltColumns checks that a chunk's size, which
// bounds fetching ahead, counts the columns built and not the shared null
// columns standing for the others.
func TestPrunedChunksCountOnlyBuiltColumns(t *testing.T) {
	var recs []*kgo.Record
	values := 0
	for i := range 1000 {
		v := []byte(fmt.Sprintf("value-%d", i))
		values += len(v)
		recs = append(recs, &kgo.Record{Topic: "events", Offset: int64(i), Key: []byte("k"), Value: v, Timestamp: time.UnixMilli(int64(i))})
	}
	want := values + 4*(len(recs)+1) + 8*len(recs) // value bytes and offsets, offset column
	b := newBatchBuilder(batchMaxRows, batchMaxBytes)
	defer b.release()
	b.prune([]bool{false, true, false, false, false, false, false})
	chunks, err := newChunks(b, recs)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseChunks(chunks)
	got := 0
	for _, c := range chunks {
		got += c.bytes
	}
	if got != want {
		t.Errorf("chunks of 1000 value-only rows count %d bytes, want %d (values, their offsets, the offset column)", got, want)
	}
}

// partialRows is rowsOf for the columns reads says were built; the rest
// are left zero.
func partialRows(rec arrow.RecordBatch, reads func(int) bool) []row {
	out := make([]row, rec.NumRows())
	for i := range out {
		r := &out[i]
		r.offset = rec.Column(colOffset).(*array.Int64).Value(i)
		if reads(colKey) {
			k := rec.Column(colKey).(*array.Binary)
			r.key, r.keyNull = string(k.Value(i)), k.IsNull(i)
		}
		if reads(colValue) {
			r.value = string(rec.Column(colValue).(*array.Binary).Value(i))
		}
		if reads(colTopic) {
			r.topic = rec.Column(colTopic).(*array.String).Value(i)
		}
		if reads(colPartition) {
			r.partition = rec.Column(colPartition).(*array.Int32).Value(i)
		}
		if reads(colTimestamp) {
			r.tsMicros = int64(rec.Column(colTimestamp).(*array.Timestamp).Value(i))
		}
		if reads(colTimestampType) && rec.Column(colTimestampType).(*array.Int32).Value(i) != 0 {
			r.value += " timestampType!=0"
		}
	}
	return out
}

// maskRow keeps the fields of r that partialRows fills for reads.
func maskRow(r row, reads func(int) bool) row {
	out := row{offset: r.offset}
	if reads(colKey) {
		out.key, out.keyNull = r.key, r.keyNull
	}
	if reads(colValue) {
		out.value = r.value
	}
	if reads(colTopic) {
		out.topic = r.topic
	}
	if reads(colPartition) {
		out.partition = r.partition
	}
	if reads(colTimestamp) {
		out.tsMicros = r.tsMicros
	}
	return out
}

// sameMultiset compares rows as a multiset, for rows whose topic and
// partition may be masked (sameRows orders by them).
func sameMultiset(t testing.TB, what string, got, want []row) {
	t.Helper()
	count := map[row]int{}
	for _, r := range want {
		count[r]++
	}
	for _, r := range got {
		count[r]--
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for r, n := range count {
		if n != 0 {
			t.Fatalf("%s: row %v appears %d more times than produced", what, r, -n)
		}
	}
}
