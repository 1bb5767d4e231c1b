package kafka

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
)

// defaultUnavailableTimeout is how long, by default, a query that must end
// (Trigger.AvailableNow or Once) waits for an unreachable broker.
const defaultUnavailableTimeout = 30 * time.Second

// unavailable wraps err in a source.UnavailableError when it says that the
// brokers cannot be reached for now (a refused or timed-out connection, a
// connection cut, a leader moving), so that the query waits and retries
// instead of failing. Other errors, and errors after ctx ended, pass as
// they are.
func (s *Source) unavailable(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil || !transient(err) || source.AsUnavailable(err) != nil {
		return err
	}
	what := "the Kafka broker "
	if len(s.cfg.bootstrap) > 1 {
		what = "the Kafka brokers "
	}
	return &source.UnavailableError{
		WaitingFor: what + strings.Join(s.cfg.bootstrap, ","),
		Hint: "start the embedded broker with `atlas up` (or check kafka.bootstrap.servers); " +
			"the source option brokerUnavailableTimeout sets how long a Trigger.AvailableNow or Once query waits",
		MaxWait: s.cfg.unavailableTimeout,
		Err:     err,
	}
}

// transient reports whether err is one a later attempt can overcome: a
// network error other than a misspelt host or a denied socket, an
// unexpected end of connection, a request timeout, or a Kafka error code
// that Kafka itself calls retriable (NOT_LEADER_OR_FOLLOWER,
// UNKNOWN_TOPIC_OR_PARTITION, ...).
func transient(err error) bool {
	if errors.Is(err, kgo.ErrClientClosed) || errors.Is(err, context.Canceled) {
		return false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return false
	}
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
		return false
	}
	var op *net.OpError
	switch {
	case errors.As(err, &op):
		return true
	case kerr.IsRetriable(err), kgo.IsRetryableBrokerErr(err):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return true
	}
	// A request that timed out while the caller's context is still live.
	return errors.Is(err, context.DeadlineExceeded)
}
