package atlas_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/twmb/avro"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestFilesAndAvroThroughTheClient: spark.read.csv with a header, a JSON
// file stream into a memory table, and from_avro with options, from the
// client against the real server.
func TestFilesAndAvroThroughTheClient(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	ctx := context.Background()
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "districts.csv")
	os.WriteFile(csvPath, []byte("district,province\nGasabo,Kigali\nHuye,Southern\n"), 0o644)
	rows, err := spark.Read().Option("header", true).CSV(csvPath).Rows(ctx)
	if err != nil || fmt.Sprint(rows) != "[map[district:Gasabo province:Kigali] map[district:Huye province:Southern]]" {
		t.Fatalf("read.csv: %v %v", rows, err)
	}

	in := filepath.Join(dir, "in")
	os.MkdirAll(in, 0o755)
	t.Chdir(dir)
	os.WriteFile(filepath.Join(in, "1.json"), []byte("{\"wiki\":\"rw\",\"bot\":false}\n{\"wiki\":\"sw\",\"bot\":true}\n"), 0o644)
	q, err := spark.ReadStream().Schema("wiki string, bot boolean").JSON("in").
		WriteStream().Format("memory").QueryName("edits").Trigger(atlas.AvailableNow()).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	df, err := spark.SQL("SELECT wiki FROM edits WHERE bot")
	if err != nil {
		t.Fatal(err)
	}
	if rows, err := df.Rows(ctx); err != nil || fmt.Sprint(rows) != "[map[wiki:sw]]" {
		t.Fatalf("file stream: %v %v", rows, err)
	}

	// to_avro with a schema, then from_avro with options, as PySpark sends
	// them; the bytes are the library's encoding of the long.
	src, err := spark.SQL("SELECT CAST(5 AS BIGINT) AS id")
	if err != nil {
		t.Fatal(err)
	}
	enc := src.Select(atlas.ToAvro(atlas.Col("id"), `"long"`).Alias("a"))
	want, _ := avro.MustParse(`"long"`).Encode(int64(5))
	if rows, err := enc.Rows(ctx); err != nil || fmt.Sprintf("%x", rows[0]["a"]) != fmt.Sprintf("%x", want) {
		t.Fatalf("to_avro: %v %v, want %x", rows, err, want)
	}
	back := enc.Select(atlas.FromAvro(atlas.Col("a"), `"long"`, map[string]string{"mode": "PERMISSIVE"}).Alias("id"))
	if rows, err := back.Rows(ctx); err != nil || fmt.Sprint(rows) != "[map[id:5]]" {
		t.Fatalf("from_avro: %v %v", rows, err)
	}
}
