package netaddr

import "testing"

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:9092": true, "127.8.0.3:1": true, "[::1]:15002": true, "localhost:0": true, "LocalHost:1": true,
		"0.0.0.0:9092": false, ":9092": false, "[::]:1": false, "10.0.0.5:9092": false, "example.com:1": false,
		"127.0.0.1": false, "": false,
	} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
