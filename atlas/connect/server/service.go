package server

import (
	"context"
	"fmt"
	"io"
	"time"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// SparkVersion is the Spark version Atlas reports to clients: the protocol
// version it speaks.
const SparkVersion = "4.0.0"

// service implements spark.connect.SparkConnectService.
type service struct {
	pb.UnimplementedSparkConnectServiceServer
	sessions *sessions
	log      io.Writer
}

func newService(conf map[string]string, log io.Writer) *service {
	return &service{sessions: newSessions(conf), log: log}
}

func (s *service) logf(format string, args ...any) {
	fmt.Fprintf(s.log, "%s atlas connect: "+format+"\n", append([]any{time.Now().UTC().Format(time.RFC3339)}, args...)...)
}

// session returns the caller's session, opening it on first use, and
// checks the server-side session id the client observed (a restarted
// server has new sessions).
func (s *service) session(user *pb.UserContext, id string, observed *string) (*session, error) {
	sess, opened, err := s.sessions.get(user.GetUserId(), id)
	if err != nil {
		return nil, invalidArgument(err)
	}
	if opened {
		s.logf("session %s opened (user %q)", id, user.GetUserId())
	}
	if observed != nil && *observed != "" && *observed != sess.serverSideID {
		return nil, sessionChanged(id)
	}
	return sess, nil
}

// close closes every session.
func (s *service) close(context.Context) {
	for _, sess := range s.sessions.all() {
		sess.close()
	}
}
