package atlas_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/atlas-lakehouse/atlas/atlas"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// TestNoServerSaysSoWithTheAddress calls a port nobody listens on: the
// error names the address and what to do. Before, the client cancelled
// the call before classifying its failure: "call canceled: context
// canceled".
func TestNoServerSaysSoWithTheAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	spark := atlas.Builder().Remote("sc://" + addr).GetOrCreate()
	defer spark.Close()
	_, err = spark.SQL("SELECT 1")
	want := "no Atlas server at " + addr + ": start one with atlas up"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// TestLostConnectionSaysSoWithTheAddress kills the server in the middle
// of a call: the error says the connection was lost, and to which server.
func TestLostConnectionSaysSoWithTheAddress(t *testing.T) {
	inCall := make(chan struct{})
	f := &fakeServer{execute: func(_ *pb.ExecutePlanRequest, stream pb.SparkConnectService_ExecutePlanServer) error {
		close(inCall)
		<-stream.Context().Done()
		return nil
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	g := grpc.NewServer(grpc.ForceServerCodec(wireCodec{t}))
	pb.RegisterSparkConnectServiceServer(g, f)
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = g.Serve(ln) }()
	t.Cleanup(g.Stop)
	spark := atlas.Builder().Remote("sc://" + addr).GetOrCreate()
	defer spark.Close()
	go func() {
		<-inCall
		time.Sleep(50 * time.Millisecond)
		g.Stop() // the connection drops mid-call, as when the daemon is killed
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = spark.SQLContext(ctx, "SELECT 1")
	want := "lost the connection to the Atlas server at " + addr
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}
