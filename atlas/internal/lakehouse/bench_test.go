package lakehouse

import (
	"context"
	"testing"
	"time"
)

// go test -run '^$' -bench . -benchtime 50x ./atlas/lakehouse/ measures
// small appends; the 1M-row benchmarks take -benchtime 3x.

// BenchmarkAppendSmall appends 100 rows per op, each op a new batch id.
func BenchmarkAppendSmall(b *testing.B) {
	ctx := context.Background()
	tb := createTestTable(b, openTest(b, ""), CreateOptions{})
	recs := batchesOf(b, genRows(0, 100), 100)
	var id int64
	for b.Loop() {
		if ok, err := tb.AppendBatch(ctx, recs, Commit{QueryID: "bench", BatchID: id}); !ok || err != nil {
			b.Fatal(ok, err)
		}
		id++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/append")
}

// BenchmarkAppend1M appends 1,000,000 rows in one call (record batches of
// 64k rows).
func BenchmarkAppend1M(b *testing.B) {
	ctx := context.Background()
	tb := createTestTable(b, openTest(b, ""), CreateOptions{})
	recs := batchesOf(b, genRows(0, 1_000_000), 1<<16)
	var id int64
	for b.Loop() {
		if ok, err := tb.AppendBatch(ctx, recs, Commit{QueryID: "bench", BatchID: id}); !ok || err != nil {
			b.Fatal(ok, err)
		}
		id++
	}
	b.ReportMetric(1e6*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkRewrite100k rewrites one file of 100,000 rows: plan, read the
// file, write its rows back with every amount changed, commit (the
// copy-on-write cycle of a MERGE touching that file).
func BenchmarkRewrite100k(b *testing.B) {
	ctx := context.Background()
	tb := createTestTable(b, openTest(b, ""), CreateOptions{})
	if ok, err := tb.AppendBatch(ctx, batchesOf(b, genRows(0, 100_000), 1<<16), Commit{}); !ok || err != nil {
		b.Fatal(ok, err)
	}
	var id int64
	var commitTime time.Duration
	for b.Loop() {
		files, err := tb.PlanFiles(ctx, nil)
		if err != nil || len(files) != 1 {
			b.Fatal(len(files), err)
		}
		old, err := tb.ReadFiles(ctx, files)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		ok, err := tb.RewriteFiles(ctx, files, old, Commit{QueryID: "bench", BatchID: id})
		if !ok || err != nil {
			b.Fatal(ok, err)
		}
		commitTime += time.Since(start)
		releaseRecords(old)
		id++
	}
	b.ReportMetric(float64(commitTime.Milliseconds())/float64(b.N), "ms/RewriteFiles")
}
