package console

import (
	"sync"
	"unicode/utf8"
)

// DefaultRetainedBatches is how many printed batches a console sink keeps
// for clients to fetch when the session does not set
// atlas.console.retainedBatches.
const DefaultRetainedBatches = 20

// MaxBatchText bounds the text kept for one batch (a console sink with a
// large numRows prints more; the retained copy ends with a note instead).
const MaxBatchText = 256 << 10

// truncatedNote ends a retained batch whose text was longer than
// MaxBatchText.
const truncatedNote = "\n... (cut: Atlas keeps the first 256 KiB of a batch's console output for clients; the server's log has all of it)\n"

// Printed is one micro-batch as the console sink printed it: the header,
// show()'s table and the empty line after it.
type Printed struct {
	BatchID int64
	Text    string
}

// Ring keeps the last few printed batches of one console query: memory is
// bounded by its capacity times MaxBatchText. It is safe for concurrent use.
type Ring struct {
	mu  sync.Mutex
	buf []Printed // oldest first, at most cap entries
	cap int
	// droppedMax is the id of the newest batch no longer kept (-1: none).
	droppedMax int64
}

// NewRing returns a ring keeping the last n batches (n <= 0 keeps none).
func NewRing(n int) *Ring {
	if n < 0 {
		n = 0
	}
	return &Ring{cap: n, droppedMax: -1}
}

// Capacity is how many batches the ring keeps.
func (r *Ring) Capacity() int { return r.cap }

// add records one printed batch, dropping the oldest beyond capacity.
func (r *Ring) add(p Printed) {
	if len(p.Text) > MaxBatchText {
		cut := MaxBatchText
		for cut > 0 && !utf8.RuneStart(p.Text[cut]) {
			cut--
		}
		p.Text = p.Text[:cut] + truncatedNote
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cap == 0 {
		r.droppedMax = max(r.droppedMax, p.BatchID)
		return
	}
	if n := len(r.buf); n > 0 && r.buf[n-1].BatchID == p.BatchID {
		r.buf[n-1] = p // the batch ran again (a retry): keep the last print
		return
	}
	if len(r.buf) == r.cap {
		r.droppedMax = max(r.droppedMax, r.buf[0].BatchID)
		copy(r.buf, r.buf[1:])
		r.buf = r.buf[:len(r.buf)-1]
	}
	r.buf = append(r.buf, p)
}

// After returns the kept batches whose id is greater than after, oldest
// first, at most limit of them (the newest; limit <= 0: all), and whether
// some batches after after are no longer kept (the ring moved past them).
func (r *Ring) After(after int64, limit int) (batches []Printed, missed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.buf {
		if p.BatchID > after {
			batches = append(batches, p)
		}
	}
	if limit > 0 && len(batches) > limit {
		batches = batches[len(batches)-limit:]
	}
	return batches, r.droppedMax > after
}
