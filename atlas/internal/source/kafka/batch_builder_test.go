package kafka

import (
	"bytes"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestBatchBuilderColumns feeds the builder records with null, empty and
// long keys and values, control records, two topics and both timestamp
// types, under row and byte caps and with a wrong size estimate, and checks
// every cell of every record it yields against the input records.
func TestBatchBuilderColumns(t *testing.T) {
	var recs []*kgo.Record
	base := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	for i := range 1000 {
		r := &kgo.Record{
			Topic:     []string{"events", "a-longer-topic-name"}[i%2],
			Partition: int32(i % 3),
			Offset:    int64(10 + i),
			Timestamp: base.Add(time.Duration(i) * time.Millisecond),
		}
		switch i % 5 {
		case 0: // null key and value
		case 1:
			r.Key, r.Value = []byte{}, []byte{}
		default:
			r.Key = []byte(fmt.Sprintf("k%d", i))
			r.Value = bytes.Repeat([]byte{byte('a' + i%26)}, i%97)
		}
		if i%7 == 0 {
			r.Attrs = kgo.NewRecordAttrs(kgo.RecordAttrsOpts{TimestampType: 1}) // LogAppendTime
		}
		recs = append(recs, r)
	}
	// Control records are transaction markers: never a row.
	markers := map[int]bool{}
	for i := 13; i < len(recs); i += 101 {
		recs[i] = markControl(recs[i])
		markers[i] = true
	}
	for _, tc := range []struct {
		name            string
		maxRows, maxB   int
		expect, perCall int
	}{
		{"row cap", 64, batchMaxBytes, 1000, 37},
		{"byte cap", batchMaxRows, 900, 1000, 250},
		{"estimate too small", 300, batchMaxBytes, 10, 1000},
		{"no estimate", batchMaxRows, batchMaxBytes, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatchBuilder(tc.maxRows, tc.maxB)
			b.expect = tc.expect
			var got []arrow.RecordBatch
			defer func() {
				for _, r := range got {
					r.Release()
				}
			}()
			flush := func() error {
				got = append(got, b.newRecord())
				return nil
			}
			var n int64
			for i := 0; i < len(recs); i += tc.perCall {
				k, err := b.add(recs[i:min(len(recs), i+tc.perCall)], flush)
				if err != nil {
					t.Fatal(err)
				}
				n += k
			}
			if b.len() > 0 {
				flush()
			}
			if want := int64(len(recs) - len(markers)); n != want {
				t.Errorf("add counted %d records, want %d", n, want)
			}
			i := 0
			for _, rec := range got {
				if rec.NumRows() > int64(tc.maxRows) {
					t.Errorf("record of %d rows, cap %d", rec.NumRows(), tc.maxRows)
				}
				if !rec.Schema().Equal(Schema) {
					t.Fatalf("schema %s", rec.Schema())
				}
				var recBytes int
				for row := range int(rec.NumRows()) {
					for markers[i] {
						i++
					}
					checkRow(t, rec, row, recs[i])
					recBytes += len(recs[i].Key) + len(recs[i].Value)
					i++
				}
				if recBytes > tc.maxB && rec.NumRows() > 1 {
					t.Errorf("record of %d key+value bytes, cap %d", recBytes, tc.maxB)
				}
				if err := array.RecordToStructArray(rec).ValidateFull(); err != nil {
					t.Fatalf("invalid record: %v", err)
				}
			}
			for markers[i] {
				i++
			}
			if i != len(recs) {
				t.Errorf("records end at input %d of %d", i, len(recs))
			}
		})
	}
}

func markControl(r *kgo.Record) *kgo.Record {
	c := *r
	c.Attrs = kgo.NewRecordAttrs(kgo.RecordAttrsOpts{Transactional: true, Control: true})
	return &c
}

func checkRow(t *testing.T, rec arrow.RecordBatch, row int, r *kgo.Record) {
	t.Helper()
	bin := func(col int, want []byte) {
		a := rec.Column(col).(*array.Binary)
		if a.IsNull(row) != (want == nil) {
			t.Fatalf("%s-%d@%d column %d null=%v, want %v", r.Topic, r.Partition, r.Offset, col, a.IsNull(row), want == nil)
		}
		if want != nil && !bytes.Equal(a.Value(row), want) {
			t.Fatalf("%s-%d@%d column %d = %q, want %q", r.Topic, r.Partition, r.Offset, col, a.Value(row), want)
		}
	}
	bin(colKey, r.Key)
	bin(colValue, r.Value)
	if got := rec.Column(colTopic).(*array.String).Value(row); got != r.Topic {
		t.Fatalf("row %d topic %q, want %q", row, got, r.Topic)
	}
	if got := rec.Column(colPartition).(*array.Int32).Value(row); got != r.Partition {
		t.Fatalf("row %d partition %d, want %d", row, got, r.Partition)
	}
	if got := rec.Column(colOffset).(*array.Int64).Value(row); got != r.Offset {
		t.Fatalf("row %d offset %d, want %d", row, got, r.Offset)
	}
	if got := int64(rec.Column(colTimestamp).(*array.Timestamp).Value(row)); got != r.Timestamp.UnixMicro() {
		t.Fatalf("row %d timestamp %d, want %d", row, got, r.Timestamp.UnixMicro())
	}
	if got := rec.Column(colTimestampType).(*array.Int32).Value(row); got != int32(r.Attrs.TimestampType()) {
		t.Fatalf("row %d timestampType %d, want %d", row, got, r.Attrs.TimestampType())
	}
	for c := range int(rec.NumCols()) {
		if c != colKey && c != colValue && rec.Column(c).IsNull(row) {
			t.Fatalf("row %d column %d is null", row, c)
		}
	}
}

// BenchmarkBatchBuilder builds Arrow records from 200k in-memory records
// shaped like bench windows' events (a null key, a JSON value of about 110
// bytes), as the reader does for one partition of a micro-batch.
func BenchmarkBatchBuilder(b *testing.B) {
	recs := make([]*kgo.Record, 200_000)
	now := time.Now()
	for i := range recs {
		recs[i] = &kgo.Record{
			Topic: "bench_events_t0", Partition: 1, Offset: int64(i), Timestamp: now,
			Value: []byte(fmt.Sprintf(`{"event_id":"e-%09d","user_id":"u-%05d","event":"click","ts":"2026-12-01T03:%02d:00.000Z","amount":%d}`, i, i%50000, i%60, i%1000)),
		}
	}
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		bb := newBatchBuilder(batchMaxRows, batchMaxBytes)
		bb.expect = len(recs)
		flush := func() error { bb.newRecord().Release(); return nil }
		for i := 0; i < len(recs); i += 4096 {
			if _, err := bb.add(recs[i:min(len(recs), i+4096)], flush); err != nil {
				b.Fatal(err)
			}
		}
		flush()
	}
	// CPU time, which a busy machine does not inflate as it does ns/op.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU returns this process's user and system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestBatchBuilderControlBytes: a control record's key and value are not
// copied, so they do not count towards the byte cap. Two data records of
// 4 bytes around a 4-byte marker fit a 10-byte cap in one record batch.
func TestBatchBuilderControlBytes(t *testing.T) {
	recs := []*kgo.Record{
		{Topic: "t", Offset: 0, Key: []byte("k0"), Value: []byte("v0")},
		markControl(&kgo.Record{Topic: "t", Offset: 1, Key: []byte{0, 0}, Value: []byte{0, 0}}),
		{Topic: "t", Offset: 2, Key: []byte("k2"), Value: []byte("v2")},
	}
	chunks, err := newChunks(newBatchBuilder(batchMaxRows, 10), recs)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, c := range chunks {
			c.release()
		}
	}()
	if len(chunks) != 1 || fmt.Sprint(chunks[0].offs) != "[0 2]" || chunks[0].end != 3 {
		t.Fatalf("%d chunks (%s), want one of offsets 0 and 2 ending at 3", len(chunks), chunkSizes(chunks))
	}
}
