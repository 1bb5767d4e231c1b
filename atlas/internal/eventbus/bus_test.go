package eventbus

import (
	"fmt"
	"sync"
	"testing"
)

type rec struct {
	mu  sync.Mutex
	got []string
}

func (r *rec) add(s string) { r.mu.Lock(); r.got = append(r.got, s); r.mu.Unlock() }

// TestOrderSyncAndPanics: events reach every listener in posting order,
// PostSync returns only after delivery, a panicking listener does not stop
// the others, and a removed listener gets no later event.
func TestOrderSyncAndPanics(t *testing.T) {
	var b Bus[*rec]
	a, c := &rec{}, &rec{}
	if !b.Add(a) || b.Add(c) {
		t.Fatal("Add must report the first listener only")
	}
	for i := 0; i < 100; i++ {
		i := i
		b.Post(func(r *rec) {
			if i == 50 && r == a {
				panic("listener bug")
			}
			r.add(fmt.Sprint(i))
		})
	}
	b.PostSync(func(r *rec) { r.add("sync") })
	check := func(r *rec, skip int) {
		r.mu.Lock()
		defer r.mu.Unlock()
		var want []string
		for i := 0; i < 100; i++ {
			if i != skip {
				want = append(want, fmt.Sprint(i))
			}
		}
		want = append(want, "sync")
		if fmt.Sprint(r.got) != fmt.Sprint(want) {
			t.Fatalf("got %v\nwant %v", r.got, want)
		}
	}
	check(a, 50)
	check(c, -1)
	if b.Remove(a) || !b.Remove(c) || b.Remove(c) {
		t.Fatal("Remove must report the last listener only, and false for an unknown one")
	}
	b.PostSync(func(r *rec) { r.add("late") }) // no listener: returns at once
	check(c, -1)
}
