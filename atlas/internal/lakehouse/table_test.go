package lakehouse

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
)

func TestParseIdent(t *testing.T) {
	cases := []struct {
		in      string
		cat     string
		ident   []string
		wantErr string
	}{
		{in: "lakehouse.gold.event_windows", cat: "lakehouse", ident: []string{"gold", "event_windows"}},
		{in: "gold.event_windows", cat: DefaultCatalogName, ident: []string{"gold", "event_windows"}},
		{in: " other.a.b.t ", cat: "other", ident: []string{"a", "b", "t"}},
		{in: "`gold`.`event windows`", cat: DefaultCatalogName, ident: []string{"gold", "event windows"}},
		{in: "gold.`a.b`", cat: DefaultCatalogName, ident: []string{"gold", "a.b"}},
		{in: "event_windows", wantErr: "has no namespace"},
		{in: "", wantErr: "empty table name"},
		{in: "gold..t", wantErr: "empty part"},
		{in: "gold.t.", wantErr: "empty part"},
		{in: "gold.my table", wantErr: "holds a space"},
		{in: "gold.`t", wantErr: "unclosed backtick"},
		{in: "gold.a/b", wantErr: "path separator"},
	}
	for _, c := range cases {
		cat, ident, err := ParseIdent(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseIdent(%q) error = %v, want one containing %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseIdent(%q): %v", c.in, err)
			continue
		}
		if cat != c.cat || !slices.Equal(ident, c.ident) {
			t.Errorf("ParseIdent(%q) = %q %q, want %q %q", c.in, cat, ident, c.cat, c.ident)
		}
	}
}

func TestCreateLoadRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lh := openTest(t, dir)

	tb := createTestTable(t, lh, CreateOptions{Properties: map[string]string{"owner": "atlas"}})
	if got := tb.Name(); got != "lakehouse.gold.events" {
		t.Errorf("Name() = %q", got)
	}
	if !tb.Schema().Equal(testSchema) {
		t.Errorf("created schema\n%v\nwant\n%v", tb.Schema(), testSchema)
	}
	props := tb.Properties()
	for k, v := range map[string]string{"commit.manifest-merge.enabled": "true", "owner": "atlas"} {
		if props[k] != v {
			t.Errorf("property %s = %q, want %q", k, props[k], v)
		}
	}
	if v := tb.Iceberg().Metadata().Version(); v != 2 {
		t.Errorf("format version %d, want 2", v)
	}
	// Iceberg types, as Spark's Iceberg would create them.
	isc := tb.Iceberg().Schema()
	for name, want := range map[string]iceberg.Type{
		"id": iceberg.PrimitiveTypes.Int64, "user": iceberg.PrimitiveTypes.String,
		"ts": iceberg.PrimitiveTypes.TimestampTz, "day": iceberg.PrimitiveTypes.Date,
		"n": iceberg.PrimitiveTypes.Int32, "amount": iceberg.PrimitiveTypes.Float64,
	} {
		f, ok := isc.FindFieldByName(name)
		if !ok || !f.Type.Equals(want) {
			t.Errorf("iceberg field %s = %v, want %v", name, f.Type, want)
		}
	}
	if f, _ := isc.FindFieldByName("id"); !f.Required {
		t.Errorf("non-nullable id should be required")
	}

	// A second catalog handle on the same files sees the same table.
	lh2 := openTest(t, dir)
	tb2, err := lh2.LoadTable(ctx, "gold.events")
	if err != nil {
		t.Fatal(err)
	}
	if !tb2.Schema().Equal(testSchema) {
		t.Errorf("loaded schema\n%v\nwant\n%v", tb2.Schema(), testSchema)
	}

	if _, err := lh.CreateTable(ctx, "gold.events", testSchema, CreateOptions{}); !errors.Is(err, ErrTableExists) {
		t.Errorf("second create: %v, want ErrTableExists", err)
	}
	again, err := lh.CreateTable(ctx, "gold.events", testSchema, CreateOptions{IfNotExists: true})
	if err != nil || again.Iceberg().Metadata().TableUUID() != tb.Iceberg().Metadata().TableUUID() {
		t.Errorf("create if not exists: %v", err)
	}
	if _, err := lh.LoadTable(ctx, "gold.missing"); !errors.Is(err, ErrNoSuchTable) {
		t.Errorf("load missing: %v, want ErrNoSuchTable", err)
	}
	if _, err := lh.LoadTable(ctx, "elsewhere.gold.events"); err == nil || !strings.Contains(err.Error(), `catalog "elsewhere"`) {
		t.Errorf("load from another catalog: %v", err)
	}

	if _, err := lh.CreateTable(ctx, "silver.b", testSchema, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := lh.CreateTable(ctx, "silver.a", testSchema, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tables, err := lh.ListTables(ctx, "silver")
	if err != nil || !slices.Equal(tables, []string{"silver.a", "silver.b"}) {
		t.Errorf("ListTables(silver) = %v, %v", tables, err)
	}
	nss, err := lh.ListNamespaces(ctx)
	if err != nil || !slices.Equal(nss, []string{"gold", "silver"}) {
		t.Errorf("ListNamespaces = %v, %v", nss, err)
	}
	if err := lh.DropTable(ctx, "silver.a", true); err != nil {
		t.Fatal(err)
	}
	if ok, err := lh.TableExists(ctx, "silver.a"); ok || err != nil {
		t.Errorf("TableExists after drop = %v, %v", ok, err)
	}
	if ok, err := lh.TableExists(ctx, "silver.b"); !ok || err != nil {
		t.Errorf("TableExists(silver.b) = %v, %v", ok, err)
	}
	if err := lh.DropTable(ctx, "silver.a", false); !errors.Is(err, ErrNoSuchTable) {
		t.Errorf("drop missing: %v, want ErrNoSuchTable", err)
	}
}

func TestCreatePartitioned(t *testing.T) {
	ctx := context.Background()
	lh := openTest(t, "")
	tb := createTestTable(t, lh, CreateOptions{PartitionBy: []string{"days(ts)", "user", "bucket(4, id)"}})
	spec := tb.Iceberg().Spec()
	var got []string
	for _, f := range spec.Fields() {
		got = append(got, f.Name+":"+f.Transform.String())
	}
	want := []string{"ts_day:day", "user:identity", "id_bucket:bucket[4]"}
	if !slices.Equal(got, want) {
		t.Errorf("partition fields %v, want %v", got, want)
	}
	rows := genRows(0, 500)
	if ok, err := tb.AppendBatch(ctx, batchesOf(t, rows, 128), Commit{QueryID: "q", BatchID: 0}); !ok || err != nil {
		t.Fatalf("append: %v %v", ok, err)
	}
	all, err := tb.ReadAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	assertRows(t, all, rows)

	for _, bad := range []string{"days(nope)", "weeks(ts)", "bucket(x, id)", "days(ts"} {
		if _, err := lh.CreateTable(ctx, "gold.bad", testSchema, CreateOptions{PartitionBy: []string{bad}}); err == nil {
			t.Errorf("partition %q accepted", bad)
		}
	}
}
