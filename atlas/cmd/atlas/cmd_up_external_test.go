package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	client "github.com/atlas-lakehouse/atlas/atlas"
	"github.com/atlas-lakehouse/atlas/atlas/internal/stack"
)

// TestUpWithExternalKafkaStartsConnect: with ATLAS_KAFKA_BROKERS naming an
// external cluster, `atlas up` started nothing, so notebooks (Spark Connect
// clients) found no server. Now up starts the daemon without a broker: its
// Spark Connect server reads the external cluster (a streaming query over
// Connect counts exactly the records produced there), status shows it and
// down stops it and frees its port.
func TestUpWithExternalKafkaStartsConnect(t *testing.T) {
	ctx := context.Background()
	ext, err := stack.NewBroker(stack.BrokerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	const produced = 37
	cl, err := stack.NewClient([]string{ext.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := range produced {
		recs = append(recs, &kgo.Record{Topic: "ext", Value: fmt.Appendf(nil, "r%d", i)})
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err = cl.ProduceSync(pctx, recs...).FirstErr()
	cancel()
	cl.Close()
	if err != nil {
		t.Fatal(err)
	}

	home := t.TempDir()
	env := []string{"ATLAS_HOME=" + home, "ATLAS_KAFKA_BROKERS=" + ext.Addr(), "ATLAS_KAFKA_ADDR=127.0.0.1:0",
		"ATLAS_CONNECT_ADDR=127.0.0.1:0", "ATLAS_CATALOG_URI=", "ATLAS_CATALOG_TYPE=", "ATLAS_WAREHOUSE=", "ATLAS_CATALOG_PROPS="}
	t.Cleanup(func() { atlasCLI(t, env, "down", "--home", home) })

	up := atlasCLI(t, env, "up", "--home", home)
	if up.code != 0 {
		t.Fatalf("atlas up: exit %d\n%s%s", up.code, up.stdout, up.stderr)
	}
	st, found, alive, err := stack.Daemon(home)
	if err != nil || !found || !alive {
		t.Fatalf("no live daemon after up (found %v, alive %v, err %v)\n%s", found, alive, err, up.stdout)
	}
	connect := st.Services["connect"]
	if !slices.Equal(st.External, []string{ext.Addr()}) || st.Addr != "" || connect == "" || strings.HasPrefix(connect, "error") {
		t.Fatalf("daemon state = %+v, want external %s, no broker address, a connect address", st, ext.Addr())
	}
	if want := fmt.Sprintf("using external Kafka at %s", ext.Addr()); !strings.Contains(up.stdout, want) ||
		!strings.Contains(up.stdout, fmt.Sprintf("pid %d", st.PID)) || !strings.Contains(up.stdout, "sc://"+connect) ||
		strings.Contains(up.stdout, "nothing started") {
		t.Fatalf("up output lacks %q, the daemon's pid %d or sc://%s:\n%s", want, st.PID, connect, up.stdout)
	}

	status := atlasCLI(t, env, "status", "--home", home, "--json")
	var info stack.Info
	if err := json.Unmarshal([]byte(status.stdout), &info); err != nil || status.code != 0 {
		t.Fatalf("status --json: exit %d, %v\n%s%s", status.code, err, status.stdout, status.stderr)
	}
	if !info.External || !info.Running || !info.Reachable || info.PID != st.PID || info.Services["connect"] != connect ||
		!slices.Equal(info.Brokers, []string{ext.Addr()}) {
		t.Fatalf("status = %+v", info)
	}
	if text := atlasCLI(t, env, "status", "--home", home); !strings.Contains(text.stdout, "sc://"+connect) ||
		!strings.Contains(text.stdout, fmt.Sprintf("pid %d", st.PID)) || !strings.Contains(text.stdout, ext.Addr()) {
		t.Fatalf("status lacks sc://%s, pid %d or %s:\n%s", connect, st.PID, ext.Addr(), text.stdout)
	}

	// A Connect client, as a notebook cell: the daemon's server reads the
	// external cluster without being told its address.
	// It reads the daemon's token from the home, as a cell does.
	t.Setenv("ATLAS_HOME", home)
	spark := client.Builder().Remote("sc://" + connect).GetOrCreate()
	defer spark.Close()
	var rows int64
	q, err := spark.ReadStream().Format("kafka").
		Option("subscribe", "ext").Option("startingOffsets", "earliest").Load().
		WriteStream().Progress(false).
		Option("checkpointLocation", filepath.Join(t.TempDir(), "cp")).
		Trigger(client.AvailableNow()).
		ForeachBatch(func(batch *client.DataFrame, _ int64) error {
			n, err := batch.Count(ctx)
			rows += n
			return err
		}).Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(); err != nil {
		t.Fatal(err)
	}
	if rows != produced {
		t.Fatalf("Connect query over the external Kafka counted %d rows, want the %d produced", rows, produced)
	}

	down := atlasCLI(t, env, "down", "--home", home)
	if want := fmt.Sprintf("stopped the Spark Connect daemon (pid %d)", st.PID); down.code != 0 || !strings.Contains(down.stdout, want) {
		t.Fatalf("down: exit %d, want %q\n%s%s", down.code, want, down.stdout, down.stderr)
	}
	if _, found, alive, _ := stack.Daemon(home); found || alive {
		t.Fatalf("after down: found %v, alive %v", found, alive)
	}
	if c, err := net.Dial("tcp", connect); err == nil {
		c.Close()
		t.Fatalf("connect address %s still answers after down", connect)
	}
}
