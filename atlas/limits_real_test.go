package atlas_test

import (
	"context"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/connect/server"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// TestLimitsNameTheirSetting: the two requests grpc and protobuf refuse
// before the server's handlers run, one too large and one nested too
// deeply, reach the user with the server setting that bounds them, and
// the session goes on working.
func TestLimitsNameTheirSetting(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0", Tokens: testTokens, Conf: map[string]string{
		engine.ConfHome: t.TempDir(), server.ConfMaxInbound: "1m",
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	spark := atlas.Builder().Remote("sc://" + srv.Addr()).GetOrCreate()
	t.Cleanup(spark.Close)
	ctx := context.Background()

	big, err := spark.SQL("SELECT '" + strings.Repeat("x", 2<<20) + "' AS s")
	if err == nil {
		_, err = big.Rows(ctx)
	}
	if err == nil || !strings.Contains(err.Error(), server.ConfMaxInbound) {
		t.Fatalf("a 2 MiB request over a 1 MiB limit: %v, want the error to name %s", err, server.ConfMaxInbound)
	}

	deep, err := spark.SQL("SELECT 1 AS id")
	if err != nil {
		t.Fatal(err)
	}
	for range 6000 { // 12,000 messages: past protobuf's 10,000
		deep = deep.Where("id >= 0")
	}
	if _, err := deep.Rows(ctx); err == nil || !strings.Contains(err.Error(), server.ConfRecursionLimit) {
		t.Fatalf("a plan 6,000 filters deep: %v, want the error to name %s", err, server.ConfRecursionLimit)
	}

	one, err := spark.SQL("SELECT 1 AS id")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := one.Rows(ctx)
	if err != nil || len(rows) != 1 {
		t.Fatalf("after the refusals: %d rows, %v", len(rows), err)
	}
}
