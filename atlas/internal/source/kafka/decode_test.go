package kafka

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	atlasproduce "github.com/atlas-lakehouse/atlas/atlas/internal/produce"
)

// The tests here decode the same fetched bytes twice: with fetchDecoder,
// and with franz-go's kgo.ProcessFetchPartition followed by newChunks (the
// reference), and compare every column of every row, the chunk ends, first
// and next.

// fetchRaw issues one raw FetchRequest for a partition of topic from
// offset, at most maxBytes, read_uncommitted, and returns the partition of
// the response.
func fetchRaw(t testing.TB, ctx context.Context, cl *kgo.Client, topic string, partition int32, offset int64, maxBytes int32) *kmsg.FetchResponseTopicPartition {
	t.Helper()
	md, err := kadm.NewClient(cl).Metadata(ctx, topic)
	if err != nil {
		t.Fatalf("metadata of %s: %v", topic, err)
	}
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxBytes = maxBytes
	req.MinBytes = 1
	req.SessionEpoch = -1 // no fetch session
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = topic // by name up to v12
	rt.TopicID = md.Topics[topic].ID
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition = partition
	rp.FetchOffset = offset
	rp.PartitionMaxBytes = maxBytes
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("fetching %s-%d@%d: %v", topic, partition, offset, err)
	}
	if resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("fetch response: error %d, %d topics", resp.ErrorCode, len(resp.Topics))
	}
	p := resp.Topics[0].Partitions[0]
	if p.ErrorCode != 0 {
		t.Fatalf("fetch response for %s-%d: error %d", topic, partition, p.ErrorCode)
	}
	return &p
}

// reference decodes rp with franz-go and newChunks: the chunks, the
// offset of the first record (control records included) and the offset
// franz-go would fetch next, or -1 when it would not move past from.
func reference(t testing.TB, b *batchBuilder, topic string, rp *kmsg.FetchResponseTopicPartition, from int64) ([]*chunk, int64, int64) {
	t.Helper()
	fp, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
		KeepControlRecords: true, Offset: from, Topic: topic, Partition: rp.Partition,
	}, rp, kgo.DefaultDecompressor(), nil)
	if fp.Err != nil {
		t.Fatalf("franz-go decoding %s-%d: %v", topic, rp.Partition, fp.Err)
	}
	if len(fp.Records) == 0 {
		if next == from {
			return nil, -1, -1
		}
		return []*chunk{{end: next}}, -1, next
	}
	first := fp.Records[0].Offset
	chunks, err := newChunks(b, fp.Records)
	if err != nil {
		t.Fatal(err)
	}
	// newChunks ends the last chunk after the last record; the fetch
	// goes on after the last batch.
	chunks[len(chunks)-1].end = next
	return chunks, first, next
}

// decodeBoth decodes rp with d and with the reference (into a builder
// like d's) and fails the test on the first difference. It returns the
// decoder's chunks, first and next.
func decodeBoth(t *testing.T, d *fetchDecoder, topic string, rp *kmsg.FetchResponseTopicPartition, from int64) ([]*chunk, int64, int64) {
	t.Helper()
	ref := newBatchBuilder(d.b.maxRows, d.b.maxBytes)
	ref.skip = d.b.skip
	wantChunks, wantFirst, wantNext := reference(t, ref, topic, rp, from)
	chunks, first, next, ok, err := d.decodePartition(topic, rp, from)
	if err != nil || !ok {
		t.Fatalf("decodePartition(%s-%d, from %d): ok %v, %v", topic, rp.Partition, from, ok, err)
	}
	if d.b.rows != 0 {
		t.Fatalf("from %d: the builder kept %d rows", from, d.b.rows)
	}
	if first != wantFirst || next != wantNext {
		t.Fatalf("from %d: first %d next %d, want %d and %d", from, first, next, wantFirst, wantNext)
	}
	sameChunks(t, fmt.Sprintf("from %d", from), chunks, wantChunks)
	t.Cleanup(func() {
		for _, c := range append(chunks, wantChunks...) {
			c.release()
		}
	})
	return chunks, first, next
}

// sameChunks compares chunks column by column.
func sameChunks(t *testing.T, what string, got, want []*chunk) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d chunks (%s), want %d (%s)", what, len(got), chunkSizes(got), len(want), chunkSizes(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.end != w.end || (g.rec == nil) != (w.rec == nil) {
			t.Fatalf("%s: chunk %d ends at %d (record %v), want %d (record %v)", what, i, g.end, g.rec != nil, w.end, w.rec != nil)
		}
		if g.rec == nil {
			continue
		}
		if !g.rec.Schema().Equal(Schema) || g.rec.NumRows() != w.rec.NumRows() {
			t.Fatalf("%s: chunk %d has %d rows, want %d", what, i, g.rec.NumRows(), w.rec.NumRows())
		}
		for c := range numColumns {
			gc, wc := g.rec.Column(c), w.rec.Column(c)
			if !array.Equal(gc, wc) {
				for r := 0; r < gc.Len(); r++ {
					if !array.SliceEqual(gc, int64(r), int64(r+1), wc, int64(r), int64(r+1)) {
						t.Fatalf("%s: chunk %d column %s row %d (offset %d): got %s, want %s", what, i,
							Schema.Field(c).Name, r, w.offs[r], array.NewSlice(gc, int64(r), int64(r+1)), array.NewSlice(wc, int64(r), int64(r+1)))
					}
				}
				t.Fatalf("%s: chunk %d column %s differs", what, i, Schema.Field(c).Name)
			}
		}
		if fmt.Sprint(g.offs) != fmt.Sprint(w.offs) || g.bytes != w.bytes {
			t.Fatalf("%s: chunk %d offsets or bytes (%d, want %d) differ", what, i, g.bytes, w.bytes)
		}
	}
}

func chunkSizes(cs []*chunk) string {
	var s []string
	for _, c := range cs {
		s = append(s, fmt.Sprintf("%d rows to %d", len(c.offs), c.end))
	}
	return strings.Join(s, ", ")
}

// decodeRecord is the i-th record produced by the tests: keys null every
// seventh record, values empty every fifth and null every eleventh, and
// headers on every third.
func decodeRecord(topic string, i int) *kgo.Record {
	r := &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "key-%d", i), Value: fmt.Appendf(nil, `{"i":%d,"pad":"%s"}`, i, strings.Repeat("x", i%40))}
	switch {
	case i%7 == 0:
		r.Key = nil
	case i%13 == 0:
		r.Key = []byte{}
	}
	switch {
	case i%11 == 0:
		r.Value = nil
	case i%5 == 0:
		r.Value = []byte{}
	}
	if i%3 == 0 {
		r.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte("v")}, {Key: "", Value: nil}}
	}
	return r
}

// produceRounds produces rounds of n records each to partition 0 of
// topic, one ProduceSync per round so that each round is at least one
// batch. It returns the records produced.
// producedAndFetched produces rounds of n records to partition 0 of a
// new topic of the given partitions on an in-process broker and returns
// them with the raw fetch of partition 0 from offset 0.
func producedAndFetched(t *testing.T, topic string, partitions int32, rounds, n int) ([]*kgo.Record, *kmsg.FetchResponseTopicPartition) {
	t.Helper()
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(partitions, topic))
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	return produceRounds(t, ctx, cl, topic, rounds, n), fetchRaw(t, ctx, cl, topic, 0, 0, 1<<20)
}

func produceRounds(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, rounds, n int) []*kgo.Record {
	t.Helper()
	var all []*kgo.Record
	for r := range rounds {
		var recs []*kgo.Record
		for i := range n {
			recs = append(recs, decodeRecord(topic, r*n+i))
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatalf("producing to %s: %v", topic, err)
		}
		all = append(all, recs...)
	}
	return all
}

// TestDecodeCodecs decodes batches produced with every codec, from
// offsets at batch starts, inside batches and past the end, with default
// and small row and byte limits and with pruned columns.
func TestDecodeCodecs(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(1, "decode-none", "decode-gzip", "decode-snappy", "decode-lz4", "decode-zstd"))
	codecs := map[string]kgo.CompressionCodec{
		"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
		"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
	}
	for name, codec := range codecs {
		t.Run(name, func(t *testing.T) {
			topic := "decode-" + name
			cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic),
				kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(codec))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			produced := produceRounds(t, ctx, cl, topic, 4, 100)
			rp := fetchRaw(t, ctx, cl, topic, 0, 0, 1<<20)
			if n := countBatches(rp.RecordBatches); n < 4 {
				t.Fatalf("fetched %d batches, want at least 4", n)
			}
			if codec := int(rp.RecordBatches[batchAttributesAt+1] & attrCodec); name != "none" && codec == 0 {
				t.Fatalf("the fetched batch is not compressed")
			}
			last := produced[len(produced)-1].Offset
			limits := []struct {
				name           string
				rows, bytes    int
				read           []bool
				wantMoreChunks bool
			}{
				{"default", batchMaxRows, batchMaxBytes, nil, false},
				{"rows", 37, batchMaxBytes, nil, true},
				{"bytes", batchMaxRows, 500, nil, true},
				{"pruned", 50, batchMaxBytes, []bool{false, true, false, false, true, true, false}, true},
				{"key only", batchMaxRows, 300, []bool{true, false, false, false, false, false, false}, true},
			}
			for _, l := range limits {
				t.Run(l.name, func(t *testing.T) {
					b := newBatchBuilder(l.rows, l.bytes)
					if l.read != nil {
						b.prune(l.read)
					}
					d := newFetchDecoder(b, false)
					// One decoder for every call: nothing may leak from one
					// call into the next.
					for _, from := range []int64{0, 1, 99, 100, 150, 250, last, last + 1} {
						chunks, first, next := decodeBoth(t, d, topic, rp, from)
						rows := 0
						for _, c := range chunks {
							rows += len(c.offs)
						}
						if from <= last && (rows != int(last-from+1) || first != from || next != last+1) {
							t.Fatalf("from %d: %d rows, first %d, next %d; want %d rows from %d to %d", from, rows, first, next, last-from+1, from, last+1)
						}
						if from > last && (chunks != nil || first != -1 || next != -1) {
							t.Fatalf("from %d past the end: %d chunks, first %d, next %d", from, len(chunks), first, next)
						}
						if from == 0 && l.wantMoreChunks != (len(chunks) > 1) {
							t.Fatalf("from 0: %d chunks (%s)", len(chunks), chunkSizes(chunks))
						}
					}
				})
			}
		})
	}
}

// countBatches counts the complete batches of a fetched partition.
func countBatches(in []byte) int {
	n := 0
	for len(in) > 17 {
		l := int(int32(binary.BigEndian.Uint32(in[8:]))) + 12
		if l > len(in) {
			break
		}
		in = in[l:]
		n++
	}
	return n
}

// batchEnds returns the byte offset after each complete batch.
func batchEnds(in []byte) []int {
	var ends []int
	at := 0
	for len(in)-at > 17 {
		l := int(int32(binary.BigEndian.Uint32(in[at+8:]))) + 12
		if at+l > len(in) {
			break
		}
		at += l
		ends = append(ends, at)
	}
	return ends
}

// TestDecodePartialBatch cuts the fetched bytes inside the last batch, as
// brokers do at the byte limit: the partial batch is ignored, and next
// is the offset after the last complete one.
func TestDecodePartialBatch(t *testing.T) {
	produced, full := producedAndFetched(t, "partial", 1, 3, 50)
	ends := batchEnds(full.RecordBatches)
	if len(ends) < 3 {
		t.Fatalf("%d batches, want 3", len(ends))
	}
	d := newFetchDecoder(newBatchBuilder(batchMaxRows, batchMaxBytes), false)
	for _, cut := range []int{ends[len(ends)-2] + 5, ends[len(ends)-2] + 70, ends[len(ends)-1] - 1} {
		rp := *full
		rp.RecordBatches = full.RecordBatches[:cut]
		_, first, next := decodeBoth(t, d, "partial", &rp, 0)
		if want := produced[99].Offset + 1; first != 0 || next != want {
			t.Fatalf("cut at byte %d: first %d next %d, want 0 and %d", cut, first, next, want)
		}
		// Only the partial batch is at or after from.
		if chunks, first, next, ok, err := d.decodePartition("partial", &rp, produced[100].Offset); chunks != nil || first != -1 || next != -1 || !ok || err != nil {
			t.Fatalf("cut at byte %d, from the partial batch: %d chunks, first %d, next %d, ok %v, %v", cut, len(chunks), first, next, ok, err)
		}
	}
}

// TestDecodeControlRecords reads committed and aborted transactions
// read_uncommitted: every data record is a row, the commit and abort
// markers are not, but they count for first and next.
func TestDecodeControlRecords(t *testing.T) {
	ctx := testContext(t)
	addr := newCluster(t, kfake.SeedTopics(1, "txn"))
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("txn"), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.TransactionalID("decode-test"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var data []*kgo.Record
	for i, commit := range []bool{true, false, true} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		recs := produceRounds(t, ctx, cl, "txn", 1, 20+i)
		data = append(data, recs...)
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatalf("ending transaction %d: %v", i, err)
		}
	}
	// Every transaction ends with a marker at the offset after its data.
	markers := []int64{data[19].Offset + 1, data[40].Offset + 1, data[62].Offset + 1}
	rp := fetchRaw(t, ctx, cl, "txn", 0, 0, 1<<20)
	for _, limit := range [][2]int{{batchMaxRows, batchMaxBytes}, {7, batchMaxBytes}, {batchMaxRows, 150}} {
		d := newFetchDecoder(newBatchBuilder(limit[0], limit[1]), false)
		for _, from := range []int64{0, 5, markers[0], markers[1], markers[1] + 1, markers[2]} {
			chunks, first, next := decodeBoth(t, d, "txn", rp, from)
			var rows []int64
			for _, c := range chunks {
				rows = append(rows, c.offs...)
			}
			var want []int64
			for _, r := range data {
				if r.Offset >= from {
					want = append(want, r.Offset)
				}
			}
			if fmt.Sprint(rows) != fmt.Sprint(want) {
				t.Fatalf("from %d: rows at %v, want %v", from, rows, want)
			}
			if next != markers[2]+1 || first != from {
				t.Fatalf("from %d: first %d next %d, want %d and %d", from, first, next, from, markers[2]+1)
			}
			if from == markers[2] && (len(chunks) != 1 || chunks[0].rec != nil) {
				t.Fatalf("from the last marker: %d chunks, want one without a record", len(chunks))
			}
		}
	}
}

// testBatch is a hand-built record batch.
type testBatch struct {
	base            int64
	epoch           int32
	attrs           int16
	lastOffsetDelta int32
	firstTs, maxTs  int64
	records         []kmsg.Record
}

// bytes encodes the batch as a broker sends it, with its CRC-32C.
func (tb testBatch) bytes() []byte {
	var raw []byte
	for _, r := range tb.records {
		r.Length = 0
		r.Length = int32(len(r.AppendTo(nil)) - 1)
		raw = r.AppendTo(raw)
	}
	rb := kmsg.RecordBatch{
		FirstOffset: tb.base, Length: int32(49 + len(raw)), PartitionLeaderEpoch: tb.epoch, Magic: 2,
		Attributes: tb.attrs, LastOffsetDelta: tb.lastOffsetDelta,
		FirstTimestamp: tb.firstTs, MaxTimestamp: tb.maxTs,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1,
		NumRecords: int32(len(tb.records)), Records: raw,
	}
	out := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

func testRecord(delta int32, tsDelta int64, key, value []byte) kmsg.Record {
	return kmsg.Record{OffsetDelta: delta, TimestampDelta64: tsDelta, Key: key, Value: value}
}

// TestDecodeHandBuilt decodes batches no producer makes: LogAppendTime,
// compacted ones with gaps between records and one compacted empty, a
// control batch, and timestamps far from now.
func TestDecodeHandBuilt(t *testing.T) {
	const logAppend = 1 << 3
	batches := []testBatch{
		{base: 0, lastOffsetDelta: 2, firstTs: 1_700_000_000_000, maxTs: 1_700_000_000_009, records: []kmsg.Record{
			testRecord(0, 0, []byte("a"), []byte("1")), testRecord(1, 9, nil, nil), testRecord(2, -5, []byte{}, []byte{}),
		}},
		// LogAppendTime: every record has the batch's max timestamp.
		{base: 3, attrs: logAppend, lastOffsetDelta: 1, firstTs: 5, maxTs: 1_800_000_000_123, records: []kmsg.Record{
			testRecord(0, 0, []byte("b"), []byte("2")), testRecord(1, 1, []byte("c"), nil),
		}},
		// Compacted: records 5, 7 and 11 of 5 to 12 are left.
		{base: 5, lastOffsetDelta: 7, firstTs: -1, maxTs: 3, records: []kmsg.Record{
			testRecord(0, 0, []byte("d"), []byte("3")), testRecord(2, 2, []byte("e"), []byte("4")), testRecord(6, 4, nil, []byte("5")),
		}},
		// Compacted away entirely: 13 to 17.
		{base: 13, lastOffsetDelta: 4, firstTs: 0, maxTs: 0},
		// A commit marker at 18.
		{base: 18, attrs: 0b0011_0000, lastOffsetDelta: 0, firstTs: 7, maxTs: 7, records: []kmsg.Record{
			testRecord(0, 0, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 0}),
		}},
		// Timestamps before 1970 and beyond what nanoseconds hold.
		{base: 19, epoch: 5, lastOffsetDelta: 2, firstTs: -1_000_000_000_001, maxTs: 0, records: []kmsg.Record{
			testRecord(0, 0, []byte("f"), []byte("6")), testRecord(1, 10_300_000_000_001, []byte("g"), []byte("7")), testRecord(2, 1_000_000_000_000, []byte("h"), []byte("8")),
		}},
	}
	var all []byte
	for _, b := range batches {
		all = append(all, b.bytes()...)
	}
	rp := &kmsg.FetchResponseTopicPartition{Partition: 3, RecordBatches: all}
	d := newFetchDecoder(newBatchBuilder(batchMaxRows, batchMaxBytes), false)
	chunks, first, next := decodeBoth(t, d, "hand", rp, 0)
	if first != 0 || next != 22 || len(chunks) != 1 || d.epoch() != 5 {
		t.Fatalf("first %d next %d epoch %d, %d chunks; want 0, 22, 5, 1", first, next, d.epoch(), len(chunks))
	}
	// Independently of franz-go: the LogAppendTime rows.
	rec := chunks[0].rec
	ts := rec.Column(colTimestamp).(*array.Timestamp)
	tsType := rec.Column(colTimestampType).(*array.Int32)
	if got := fmt.Sprint(chunks[0].offs); got != "[0 1 2 3 4 5 7 11 19 20 21]" {
		t.Fatalf("rows at offsets %s", got)
	}
	for row := 3; row <= 4; row++ {
		if ts.Value(row) != 1_800_000_000_123_000 || tsType.Value(row) != 1 {
			t.Fatalf("LogAppendTime row %d: timestamp %d type %d", row, ts.Value(row), tsType.Value(row))
		}
	}
	if ts.Value(1) != 1_700_000_000_009_000 || tsType.Value(1) != 0 || !rec.Column(colKey).IsNull(1) || !rec.Column(colValue).IsNull(1) {
		t.Fatalf("row 1: timestamp %d type %d", ts.Value(1), tsType.Value(1))
	}
	if rec.Column(colKey).IsNull(2) || rec.Column(colValue).IsNull(2) || rec.Column(colKey).(*array.Binary).ValueLen(2) != 0 {
		t.Fatal("row 2: empty key and value read as null")
	}
	// From inside the compacted gap, and from the empty batch.
	for _, from := range []int64{6, 8, 12, 13, 16, 18, 19, 22} {
		decodeBoth(t, d, "hand", rp, from)
	}
	chunks, first, next, _, _ = d.decodePartition("hand", rp, 13)
	if first != 18 || len(chunks) != 1 || chunks[0].offs[0] != 19 {
		t.Fatalf("from 13: first %d, %d chunks", first, len(chunks))
	}
	for _, c := range chunks {
		c.release()
	}
	// Only the empty batch.
	rp2 := &kmsg.FetchResponseTopicPartition{RecordBatches: batches[3].bytes()}
	chunks, first, next = decodeBoth(t, d, "hand", rp2, 14)
	if len(chunks) != 1 || chunks[0].rec != nil || chunks[0].end != 18 || first != -1 || next != 18 || d.epoch() != 0 {
		t.Fatalf("compacted empty batch: %d chunks, first %d, next %d, epoch %d", len(chunks), first, next, d.epoch())
	}
	if chunks, _, next, _, _ := d.decodePartition("hand", rp2, 18); chunks != nil || next != -1 || d.epoch() != -1 {
		t.Fatalf("past the empty batch: %d chunks, next %d, epoch %d", len(chunks), next, d.epoch())
	}
}

// TestDecodeCorrupt flips a byte of a fetched batch: the CRC check fails,
// naming the partition and the batch's offset, and nothing is returned.
// A record that runs past its batch fails even with a valid CRC.
func TestDecodeCorrupt(t *testing.T) {
	produced, full := producedAndFetched(t, "corrupt", 2, 3, 30)
	ends := batchEnds(full.RecordBatches)
	b := newBatchBuilder(10, batchMaxBytes)
	d := newFetchDecoder(b, false)
	bad := *full
	bad.RecordBatches = bytes.Clone(full.RecordBatches)
	bad.RecordBatches[ends[1]+100] ^= 0x10 // in the third batch
	chunks, first, next, ok, err := d.decodePartition("corrupt", &bad, 0)
	want := fmt.Sprintf("corrupt record batch at offset %d of corrupt-0: CRC mismatch", produced[60].Offset)
	if err == nil || !strings.Contains(err.Error(), want) || chunks != nil || first != -1 || next != -1 || !ok {
		t.Fatalf("flipped byte: %d chunks, first %d, next %d, ok %v, err %v; want %q", len(chunks), first, next, ok, err, want)
	}
	if b.rows != 0 {
		t.Fatalf("the builder kept %d rows", b.rows)
	}
	// franz-go agrees that the batch is corrupt.
	if fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Topic: "corrupt"}, &bad, kgo.DefaultDecompressor(), nil); fp.Err == nil {
		t.Fatal("franz-go decoded the flipped byte")
	}
	// The decoder still works.
	want0, _, _ := decodeBoth(t, d, "corrupt", full, 0)

	// A batch without its CRC: an error, unless the CRC is not checked.
	noCRC := *full
	noCRC.RecordBatches = bytes.Clone(full.RecordBatches)
	clear(noCRC.RecordBatches[17:21])
	if _, _, _, _, err := d.decodePartition("corrupt", &noCRC, 0); err == nil || !strings.Contains(err.Error(), "at offset 0 of corrupt-0: CRC mismatch") {
		t.Fatalf("zero CRC: %v", err)
	}
	got, _, _, _, err := newFetchDecoder(newBatchBuilder(10, batchMaxBytes), true).decodePartition("corrupt", &noCRC, 0)
	if err != nil {
		t.Fatalf("zero CRC, not checked: %v", err)
	}
	sameChunks(t, "zero CRC, not checked", got, want0)

	// A record claiming more bytes than its batch holds, with a valid CRC.
	tb := testBatch{base: 7, lastOffsetDelta: 1, records: []kmsg.Record{
		testRecord(0, 0, []byte("k"), []byte("v")), testRecord(1, 0, []byte("k"), []byte("v")),
	}}
	raw := tb.bytes()
	raw[batchHeaderSize+4+2] = 0x7f // the first record's key length
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	rp := &kmsg.FetchResponseTopicPartition{Partition: 1, RecordBatches: raw}
	_, _, _, _, err = d.decodePartition("corrupt", rp, 0)
	if err == nil || !strings.Contains(err.Error(), "at offset 7 of corrupt-1: record 0 of 2") {
		t.Fatalf("overrunning key: %v", err)
	}
}

// TestDecodeMessageSetV1 hands a magic 1 message set back to the caller.
func TestDecodeMessageSetV1(t *testing.T) {
	m := kmsg.MessageV1{Offset: 4, Magic: 1, Timestamp: 1_700_000_000_000, Key: []byte("k"), Value: []byte("v")}
	m.MessageSize = int32(len(m.AppendTo(nil)) - 12)
	raw := m.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[12:], crc32.ChecksumIEEE(raw[16:]))
	// After a v2 batch: the whole partition goes back.
	v2 := testBatch{base: 0, lastOffsetDelta: 3, records: []kmsg.Record{testRecord(3, 0, nil, []byte("x"))}}.bytes()
	rp := &kmsg.FetchResponseTopicPartition{RecordBatches: append(v2, raw...)}
	fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Topic: "v1"}, rp, kgo.DefaultDecompressor(), nil)
	if fp.Err != nil || len(fp.Records) != 2 || fp.Records[1].Offset != 4 {
		t.Fatalf("franz-go: %v, %d records", fp.Err, len(fp.Records))
	}
	b := newBatchBuilder(batchMaxRows, batchMaxBytes)
	chunks, first, next, ok, err := newFetchDecoder(b, false).decodePartition("v1", rp, 0)
	if ok || err != nil || chunks != nil || first != -1 || next != -1 || b.rows != 0 {
		t.Fatalf("magic 1: ok %v, %v, %d chunks, first %d, next %d", ok, err, len(chunks), first, next)
	}
}

// BenchmarkDecodePartition decodes the fetched bytes of 200k events like
// those of atlas bench windows (atlas/produce's generator: ~100-byte JSON
// values, franz-go's default snappy batches, 1 MiB per fetch) with
// fetchDecoder (atlas) and with franz-go's ProcessFetchPartition, pooled
// as the reader's client is, then newChunks (franz-go+newChunks).
func BenchmarkDecodePartition(b *testing.B) {
	const topic, events = "bench-decode", 200_000
	ctx := context.Background()
	addr := newCluster(b, kfake.SeedTopics(1, topic))
	gen, err := atlasproduce.GenerateEvents(atlasproduce.EventsConfig{Count: events, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	cl, err := atlasproduce.NewClient([]string{addr}, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, len(gen))
	for i, e := range gen {
		recs[i] = &kgo.Record{Key: e.Key, Value: e.Value, Timestamp: e.Time}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		b.Fatal(err)
	}
	type fetched struct {
		rp   *kmsg.FetchResponseTopicPartition
		from int64
	}
	var fetches []fetched
	bytes := 0
	for from := int64(0); from < events; {
		rp := fetchRaw(b, ctx, cl, topic, 0, from, 1<<20)
		fetches = append(fetches, fetched{rp, from})
		bytes += len(rp.RecordBatches)
		_, next := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Offset: from, Topic: topic}, rp, kgo.DefaultDecompressor(), nil)
		if next <= from {
			b.Fatalf("fetch from %d did not move", from)
		}
		from = next
	}
	b.Logf("%d events in %d fetches of %d bytes in all", events, len(fetches), bytes)
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/events, "ns/record")
	}
	b.Run("atlas", func(b *testing.B) {
		d := newFetchDecoder(newBatchBuilder(batchMaxRows, batchMaxBytes), false)
		for b.Loop() {
			rows := 0
			for _, f := range fetches {
				chunks, _, _, ok, err := d.decodePartition(topic, f.rp, f.from)
				if err != nil || !ok {
					b.Fatal(ok, err)
				}
				for _, c := range chunks {
					rows += len(c.offs)
					c.release()
				}
			}
			if rows != events {
				b.Fatalf("%d rows", rows)
			}
		}
		report(b)
	})
	b.Run("franz-go+newChunks", func(b *testing.B) {
		pool := &recordPool{}
		dec := kgo.DefaultDecompressor(pool)
		builder := newBatchBuilder(batchMaxRows, batchMaxBytes)
		for b.Loop() {
			rows := 0
			for _, f := range fetches {
				fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
					Offset: f.from, Topic: topic, Pools: []kgo.Pool{pool},
				}, f.rp, dec, nil)
				if fp.Err != nil {
					b.Fatal(fp.Err)
				}
				chunks, err := newChunks(builder, fp.Records)
				if err != nil {
					b.Fatal(err)
				}
				for _, c := range chunks {
					rows += len(c.offs)
					c.release()
				}
			}
			if rows != events {
				b.Fatalf("%d rows", rows)
			}
		}
		report(b)
	})
}
