package exec

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/guard"
)

// overlapDepth is how many records may wait between the reader and the
// operators: enough to keep both busy, few enough to bound memory (a
// Kafka record batch is at most 64k rows).
const overlapDepth = 2

// errConsumerFailed stops the reader once the consumer has failed; the
// consumer's own error is what overlap returns.
var errConsumerFailed = errors.New("the micro-batch's operators failed")

// overlap runs read, handing each record it yields to consume on a second
// goroutine, in order: the source builds record n+1 (Kafka fetch, Arrow
// building) while the operators parse and aggregate record n. Spark gets
// the same overlap from its task pipeline; here it is the difference
// between using one core and two. consume's first error stops read and is
// returned; later records are released unconsumed.
func overlap(read func(yield func(arrow.RecordBatch) error) error, consume func(arrow.RecordBatch) error) error {
	recs := make(chan arrow.RecordBatch, overlapDepth)
	failed := make(chan struct{})
	done := make(chan struct{})
	var consumeErr error
	go func() {
		defer close(done)
		for rec := range recs {
			if consumeErr == nil {
				if consumeErr = consumeRecGuarded(consume, rec); consumeErr != nil {
					close(failed)
				}
			}
			rec.Release()
		}
	}()
	readErr := read(func(rec arrow.RecordBatch) error {
		// Check first: once the consumer failed it drains the channel, so
		// a send could keep winning the select below.
		select {
		case <-failed:
			return errConsumerFailed
		default:
		}
		rec.Retain()
		select {
		case recs <- rec:
			return nil
		case <-failed:
			rec.Release()
			return errConsumerFailed
		}
	})
	close(recs)
	<-done
	if consumeErr != nil {
		return consumeErr
	}
	return readErr
}

// consumeRecGuarded is consume on overlap's consuming goroutine, a panic
// failing the run with a *guard.PanicError instead of ending the process.
func consumeRecGuarded(consume func(arrow.RecordBatch) error, rec arrow.RecordBatch) (err error) {
	defer guard.Recover("the consumer of an overlapped read", &err)
	return consume(rec)
}
