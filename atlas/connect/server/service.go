package server

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"google.golang.org/grpc/status"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/functions"
)

// SparkVersion is the Spark version Atlas reports to clients: the protocol
// version it speaks, the one SQL's version() names too.
const SparkVersion = functions.SparkVersion

// service implements spark.connect.SparkConnectService.
type service struct {
	pb.UnimplementedSparkConnectServiceServer
	sessions *sessions
	limits   limits
	log      io.Writer
	stop     chan struct{}
	stopped  chan struct{}
	acks     batchAcks // foreachBatch answers awaited (foreachbatch.go)

	// store records the streaming queries to resume after a restart; nil
	// when resuming is off (resume.go).
	store *queryStore
	// watchers remove the records of queries that end (resume.go).
	watchers    sync.WaitGroup
	watchMu     sync.Mutex
	watchClosed bool
	// resumed is closed once the recorded queries are resumed; requests
	// wait for it.
	resumed chan struct{}
	// owner is the principal that resumes the recorded queries of a run
	// that did not authenticate its callers (records without principal).
	owner string
}

// awaitResume waits until the recorded queries are resumed, or ctx ends.
func (s *service) awaitResume(ctx context.Context) error {
	select {
	case <-s.resumed:
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

// newService starts the service with its session janitor, which closes
// sessions idle for timeout (never when timeout < 0). A nil store records
// no streaming query.
func newService(conf map[string]string, l limits, timeout time.Duration, log io.Writer, store *queryStore) *service {
	s := &service{sessions: newSessions(conf, l), limits: l, log: log, stop: make(chan struct{}), stopped: make(chan struct{}), store: store, resumed: make(chan struct{})}
	s.sessions.logf = s.logf
	go s.janitor(timeout)
	return s
}

// janitor closes idle sessions until the service closes.
func (s *service) janitor(timeout time.Duration) {
	defer close(s.stopped)
	if timeout < 0 {
		<-s.stop
		return
	}
	tick := time.NewTicker(min(max(timeout/4, 10*time.Millisecond), time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-tick.C:
			for _, sess := range s.sessions.expire(now, timeout) {
				sess.close()
				s.logf("session %s closed after %s idle", sess.key.tag(), timeout)
			}
		}
	}
}

func (s *service) logf(format string, args ...any) {
	fmt.Fprintf(s.log, "%s atlas connect: "+format+"\n", append([]any{time.Now().UTC().Format(time.RFC3339)}, args...)...)
}

// session returns the caller's session, opening it on first use, and
// checks the server-side session id the client observed (a restarted
// server has new sessions).
func (s *service) session(ctx context.Context, user *pb.UserContext, id string, observed *string) (*session, error) {
	sess, opened, err := s.sessions.get(sessionKey{principal(ctx), user.GetUserId(), id}, true)
	if le, ok := err.(*limitErr); ok {
		return nil, le.err
	}
	if err != nil {
		return nil, invalidArgument(err)
	}
	if opened {
		s.logf("session %s opened", sess.key.tag())
	}
	if observed != nil && *observed != "" && *observed != sess.serverSideID {
		return nil, sessionChanged(id)
	}
	return sess, nil
}

// close stops the janitor and closes every session. The streaming
// queries it stops keep their records: the next start resumes them.
func (s *service) close(context.Context) {
	close(s.stop)
	<-s.stopped
	<-s.resumed // resuming stops at the next query once s.stop is closed
	for _, sess := range s.sessions.all() {
		sess.close()
	}
	s.watchMu.Lock()
	s.watchClosed = true
	s.watchMu.Unlock()
	s.watchers.Wait()
}
