package file

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// BenchmarkReadFile reads a 100,000-line file of each text format; the
// rows/s metric is what one core decodes.
func BenchmarkReadFile(b *testing.B) {
	const n = 100_000
	schema, _ := types.ParseDDL("id bigint, wiki string, bot boolean, amount double, ts timestamp")
	dir := b.TempDir()
	var js, cs strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&js, "{\"id\":%d,\"wiki\":\"rw%d\",\"bot\":%v,\"amount\":%d.25,\"ts\":\"2024-05-01 10:%02d:%02d\"}\n", i, i%50, i%3 == 0, i, (i/60)%60, i%60)
		fmt.Fprintf(&cs, "%d,rw%d,%v,%d.25,2024-05-01 10:%02d:%02d\n", i, i%50, i%3 == 0, i, (i/60)%60, i%60)
	}
	files := map[string]string{"json": js.String(), "csv": cs.String()}
	for _, format := range []string{"json", "csv"} {
		p := filepath.Join(dir, "f."+format)
		os.WriteFile(p, []byte(files[format]), 0o644)
		b.Run(format, func(b *testing.B) {
			r, err := NewReader(format, schema, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.SetBytes(int64(len(files[format])))
			for i := 0; i < b.N; i++ {
				rows := int64(0)
				if _, err := r.ReadFile(context.Background(), p, func(rec arrow.RecordBatch) error { rows += rec.NumRows(); return nil }); err != nil || rows != n {
					b.Fatalf("%d rows, %v", rows, err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
