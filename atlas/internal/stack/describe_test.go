package stack

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrokerLineNamesTheExternalCluster: with ATLAS_KAFKA_BROKERS naming a
// cluster, the Setup cell printed "the broker already runs (pid 0) on "
// with no address. The line must name the addresses in use and no pid.
func TestBrokerLineNamesTheExternalCluster(t *testing.T) {
	b1, err := NewBroker(BrokerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b1.Close()
	b2, err := NewBroker(BrokerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	t.Setenv(EnvKafkaBrokers, b1.Addr()+","+b2.Addr())
	info, err := EnsureUp(context.Background(), Options{Home: t.TempDir(), Addr: freeAddr(t)})
	if err != nil {
		t.Fatal(err)
	}
	line := info.BrokerLine()
	if !strings.Contains(line, b1.Addr()+","+b2.Addr()) || strings.Contains(line, "pid") || !strings.Contains(line, EnvKafkaBrokers) {
		t.Fatalf("BrokerLine = %q, want the external addresses %s,%s and no pid", line, b1.Addr(), b2.Addr())
	}
}

// TestBrokerLineOfTheEmbeddedBroker: the embedded broker's line names its
// pid and address, whether this call started it or found it running.
func TestBrokerLineOfTheEmbeddedBroker(t *testing.T) {
	for _, c := range []struct {
		info Info
		want string
	}{
		{Info{Started: true, PID: 42, Addr: "127.0.0.1:19092"}, "started the broker (pid 42) on 127.0.0.1:19092"},
		{Info{Running: true, PID: 43, Addr: "127.0.0.1:19093"}, "the broker already runs (pid 43) on 127.0.0.1:19093"},
		// `atlas up` with an external cluster runs the daemon of the
		// services (Spark Connect) and no broker.
		{Info{External: true, Started: true, PID: 44, Brokers: []string{"k1:9092", "k2:9092"}},
			"using the external Kafka cluster on k1:9092,k2:9092 ($ATLAS_KAFKA_BROKERS); started the daemon of the services (pid 44), no broker"},
		{Info{External: true, Running: true, PID: 45, Brokers: []string{"k1:9092"}},
			"using the external Kafka cluster on k1:9092 ($ATLAS_KAFKA_BROKERS); the daemon of the services already runs (pid 45), no broker"},
	} {
		if got := c.info.BrokerLine(); got != c.want {
			t.Errorf("BrokerLine = %q, want %q", got, c.want)
		}
	}
}

// TestNotebookSetupCellsStartTheStackThroughTheCLI: every notebook's Setup
// starts the stack with `!atlas up`, whose output names the Kafka in use
// (an external cluster by its addresses, see TestUpNamesTheExternalCluster
// in cmd/atlas): a cell that starts a daemon itself (stack.EnsureUp) would
// get a broker without the Spark Connect server, and once printed
// "the broker already runs (pid 0) on " for an external cluster.
func TestNotebookSetupCellsStartTheStackThroughTheCLI(t *testing.T) {
	var nbs []string
	for _, pattern := range []string{"../../../notebooks/*/notebook.ipynb", "../../../notebooks/labs/*/notebook.ipynb"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		nbs = append(nbs, m...)
	}
	if len(nbs) == 0 {
		t.Fatal("no notebooks found")
	}
	for _, p := range nbs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				CellType string   `json:"cell_type"`
				Source   []string `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		found := false
		for _, c := range nb.Cells {
			src := strings.Join(c.Source, "")
			if c.CellType != "code" {
				continue
			}
			if strings.Contains(src, "stack.EnsureUp(") {
				t.Errorf("%s: a cell starts the stack itself (stack.EnsureUp), without the Spark Connect server:\n%s", p, src)
			}
			for _, line := range strings.Split(src, "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "!atlas" && f[1] == "up" && !strings.ContainsAny(line, ">|&") {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%s: no Setup cell runs !atlas up", p)
		}
	}
}
