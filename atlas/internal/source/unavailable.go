package source

import (
	"errors"
	"fmt"
	"time"
)

// UnavailableError says that a source cannot reach what it reads from for
// now (a Kafka broker that is down or restarting): the condition is expected
// to pass, so a running query waits and retries rather than failing. Other
// errors are permanent.
type UnavailableError struct {
	// WaitingFor names what the source waits for, such as
	// "the Kafka broker 127.0.0.1:9092"; the query's status shows it.
	WaitingFor string
	// Hint says what to do when waiting does not help, such as "start it
	// with `atlas up`".
	Hint string
	// MaxWait bounds how long a query that must finish (Trigger.AvailableNow
	// or Once) and Start wait before failing; 0 means the executor's
	// default.
	MaxWait time.Duration
	// Err is the error the source got.
	Err error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s is unavailable: %v", e.WaitingFor, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// AsUnavailable returns the UnavailableError in err's chain, or nil.
func AsUnavailable(err error) *UnavailableError {
	var ue *UnavailableError
	if errors.As(err, &ue) {
		return ue
	}
	return nil
}
