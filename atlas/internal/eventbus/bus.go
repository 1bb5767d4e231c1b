// Package eventbus delivers events to listeners in order, one at a time,
// on a goroutine that runs only while events are queued: the delivery of
// Spark's StreamingQueryListener events, shared by the engine and the
// Connect client.
package eventbus

import (
	"fmt"
	"os"
	"slices"
	"sync"
)

// Bus holds listeners of type L (an interface type; listeners are told
// apart with ==, so register pointers).
type Bus[L comparable] struct {
	mu        sync.Mutex
	listeners []L
	queue     []event[L]
	running   bool
}

type event[L comparable] struct {
	to      []L
	deliver func(L)
	done    chan struct{} // closed once delivered, or nil
}

// Add registers a listener; it reports whether it is the first.
func (b *Bus[L]) Add(l L) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.listeners = append(b.listeners, l)
	return len(b.listeners) == 1
}

// Remove unregisters a listener; it reports whether none is left (false
// when l was not registered). Events already queued for it may still be
// delivered.
func (b *Bus[L]) Remove(l L) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := slices.Index(b.listeners, l)
	if i < 0 {
		return false
	}
	b.listeners = slices.Delete(b.listeners, i, i+1)
	return len(b.listeners) == 0
}

// List returns the registered listeners.
func (b *Bus[L]) List() []L {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.listeners)
}

// Post queues an event for the listeners registered now.
func (b *Bus[L]) Post(deliver func(L)) { b.enqueue(deliver, nil) }

// PostSync queues an event and waits until it has been delivered.
func (b *Bus[L]) PostSync(deliver func(L)) {
	done := make(chan struct{})
	if b.enqueue(deliver, done) {
		<-done
	}
}

// enqueue queues an event; it reports false when no listener is registered.
func (b *Bus[L]) enqueue(deliver func(L), done chan struct{}) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.listeners) == 0 {
		return false
	}
	b.queue = append(b.queue, event[L]{to: slices.Clone(b.listeners), deliver: deliver, done: done})
	if !b.running {
		b.running = true
		go b.drain()
	}
	return true
}

func (b *Bus[L]) drain() {
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		ev := b.queue[0]
		b.queue = b.queue[1:]
		b.mu.Unlock()
		for _, l := range ev.to {
			deliverSafely(l, ev.deliver)
		}
		if ev.done != nil {
			close(ev.done)
		}
	}
}

// deliverSafely calls one listener; a listener that panics is reported on
// stderr and the others go on, as Spark logs a listener's exception.
func deliverSafely[L any](l L, deliver func(L)) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "atlas: streaming query listener %T panicked: %v\n", l, r)
		}
	}()
	deliver(l)
}
