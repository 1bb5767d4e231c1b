package stack

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// TestDaemonServices runs the daemon with one service that starts and one
// that fails: the broker serves, the state and Status record the address
// and the error, and stopping the daemon stops the service.
func TestDaemonServices(t *testing.T) {
	home := t.TempDir()
	stopped := make(chan struct{})
	var gotEnv ServiceEnv
	svcs := []DaemonService{
		{Name: "ok", Start: func(_ context.Context, env ServiceEnv) (string, func(), error) {
			gotEnv = env
			return "127.0.0.1:1", func() { close(stopped) }, nil
		}},
		{Name: "bad", Start: func(context.Context, ServiceEnv) (string, func(), error) {
			return "", nil, errors.New("boom")
		}},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- RunDaemon(ctx, DaemonConfig{Home: home, Addr: freeAddr(t), Partitions: 1, Log: io.Discard, Services: svcs})
	}()
	// Status would not count this test process as a daemon (its command
	// line lacks DaemonArg), so read the state file it reads.
	var st State
	deadline := time.Now().Add(20 * time.Second)
	for {
		var ok bool
		var err error
		if st, ok, err = readState(pathsOf(home)); err == nil && ok && st.Addr != "" {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("daemon not ready: %+v, %v", st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := Ping(context.Background(), []string{st.Addr}); err != nil {
		t.Errorf("broker: %v", err)
	}
	if st.Services["ok"] != "127.0.0.1:1" || st.Services["bad"] != "error: boom" || len(st.Services) != 2 {
		t.Errorf("services %v", st.Services)
	}
	if gotEnv.Home != home || gotEnv.KafkaAddr != st.Addr {
		t.Errorf("service env %+v, want home %s and broker %s", gotEnv, home, st.Addr)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	default:
		t.Fatal("the service was not stopped with the daemon")
	}
}
