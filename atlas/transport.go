package atlas

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The client speaks gRPC over net/http's HTTP/2 without TLS (h2c), as the
// gRPC wire protocol describes it (grpc/grpc doc/PROTOCOL-HTTP2.md):
// POST /<service>/<method>, content-type application/grpc, each message
// framed by a compressed flag and a 4-byte big-endian length, the status in
// the grpc-status and grpc-message trailers. Spark Connect needs only unary
// and server-streaming calls. net/http is in every cell already; grpc-go
// would add about 4 MB and a third of a cell's build time.

// service is Spark Connect's gRPC service name.
const service = "/spark.connect.SparkConnectService/"

// maxFrame bounds one response message (Spark's default maximum, 128 MiB).
const maxFrame = 128 << 20

// Code is a gRPC status code.
type Code uint32

// The gRPC status codes the client tells apart.
const (
	CodeOK                Code = 0
	CodeCanceled          Code = 1
	CodeUnknown           Code = 2
	CodeInvalidArgument   Code = 3
	CodeDeadlineExceeded  Code = 4
	CodeNotFound          Code = 5
	CodeResourceExhausted Code = 8
	CodeUnimplemented     Code = 12
	CodeInternal          Code = 13
	CodeUnavailable       Code = 14
	CodeUnauthenticated   Code = 16
)

// conn is an HTTP/2 connection pool to one server; closing it cancels
// every call in flight, as a process exit would.
type conn struct {
	base   string
	auth   string // the Authorization header, "" for none
	agent  string // the User-Agent header
	hc     *http.Client
	ctx    context.Context
	cancel context.CancelFunc
}

// newConn connects to r's target: HTTP/2 over TLS when r has a TLS
// configuration, else h2c; r's token goes in every call's Authorization
// header.
func newConn(r *remote, agent string) *conn {
	var p http.Protocols
	tr := &http.Transport{
		Protocols:         &p,
		DialContext:       (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2: true,
	}
	scheme := "http://"
	if r.tls != nil {
		p.SetHTTP2(true)
		tr.TLSClientConfig = r.tls
		scheme = "https://"
	} else {
		p.SetUnencryptedHTTP2(true)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{base: scheme + r.target, agent: agent + " atlas-go-client", hc: &http.Client{Transport: tr}, ctx: ctx, cancel: cancel}
	if r.token != "" {
		c.auth = "Bearer " + r.token
	}
	return c
}

func (c *conn) close() {
	c.cancel()
	c.hc.CloseIdleConnections()
}

// rpcStatus is a gRPC status returned by the server or made up for a
// transport failure.
type rpcStatus struct {
	code Code
	msg  string
	// noServer marks a call that found no server listening.
	noServer bool
	info     *errorInfo // Spark's ErrorInfo detail, if the server sent one
}

func (s *rpcStatus) Error() string {
	return fmt.Sprintf("rpc error: code = %d desc = %s", s.code, s.msg)
}

// The transport moves encoded messages: callers encode a request with its
// own MarshalVT and hand over the method value of a response's UnmarshalVT.
// It never calls a protobuf-go-lite method through an interface on purpose.
// The linker keeps method M of every type that is ever converted to an
// interface once any interface call of a method named M is reachable; one
// interface call of UnmarshalVT would keep the decoder of every request,
// relation and expression type, and one of MarshalVT the encoder of every
// response type: about 250 KB of code laid out again in every notebook
// cell's link.

// call starts method with body, the encoded request, and returns the
// response stream.
func (c *conn) call(ctx context.Context, method string, body []byte) (*callStream, error) {
	frame := make([]byte, 5+len(body))
	binary.BigEndian.PutUint32(frame[1:5], uint32(len(body)))
	copy(frame[5:], body)

	ctx, cancel := context.WithCancel(ctx)
	stopAfter := context.AfterFunc(c.ctx, cancel) // closing the session cancels the call
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+service+method, bytes.NewReader(frame))
	if err != nil {
		stopAfter()
		cancel()
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/grpc+proto")
	hreq.Header.Set("Te", "trailers")
	hreq.Header.Set("User-Agent", c.agent)
	if c.auth != "" {
		hreq.Header.Set("Authorization", c.auth)
	}
	if dl, ok := ctx.Deadline(); ok {
		if ms := time.Until(dl).Milliseconds(); ms > 0 {
			hreq.Header.Set("Grpc-Timeout", strconv.FormatInt(ms, 10)+"m")
		}
	}
	resp, err := c.hc.Do(hreq)
	if err != nil {
		// Classified before cancel: cancelling first made every failure,
		// a server that is not there included, read "call canceled".
		st := c.transportStatus(ctx, err)
		stopAfter()
		cancel()
		return nil, st
	}
	s := &callStream{resp: resp, done: func() { stopAfter(); cancel() }, ctx: ctx, conn: c, method: method}
	if resp.StatusCode != http.StatusOK {
		s.close()
		return nil, &rpcStatus{code: httpCode(resp.StatusCode), msg: fmt.Sprintf("HTTP %s from %s (is it a Spark Connect server?)", resp.Status, c.base)}
	}
	if st := headerStatus(resp.Header); st != nil {
		// Trailers-only: the call failed (or ended) before any message.
		s.close()
		if st.code == CodeOK {
			s.eof = true
			return s, nil
		}
		return nil, st
	}
	return s, nil
}

// unary runs a call with one response, which decode reads.
func (c *conn) unary(ctx context.Context, method string, body []byte, decode func([]byte) error) error {
	s, err := c.call(ctx, method, body)
	if err != nil {
		return err
	}
	defer s.close()
	if err := s.recv(decode); err != nil {
		if errors.Is(err, io.EOF) {
			return &rpcStatus{code: CodeInternal, msg: method + ": the server sent no response"}
		}
		return err
	}
	return s.drain()
}

// callStream reads the response messages of one call.
type callStream struct {
	resp   *http.Response
	ctx    context.Context
	conn   *conn
	method string
	done   func()
	eof    bool
	hdr    [5]byte
}

// recv reads the next message and decodes it with decode (the UnmarshalVT
// of a new message); io.EOF after the last one when the call succeeded, the
// call's status otherwise.
func (s *callStream) recv(decode func([]byte) error) error {
	if s.eof {
		return io.EOF
	}
	if _, err := io.ReadFull(s.resp.Body, s.hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			s.eof = true
			st := headerStatus(s.resp.Trailer)
			s.close()
			if st == nil {
				return &rpcStatus{code: CodeInternal, msg: "the server ended the call without a status"}
			}
			if st.code != CodeOK {
				return st
			}
			return io.EOF
		}
		st := s.lost(err)
		s.close()
		return st
	}
	if s.hdr[0] != 0 {
		s.close()
		return &rpcStatus{code: CodeInternal, msg: "the server sent a compressed message, which this client never asks for"}
	}
	n := binary.BigEndian.Uint32(s.hdr[1:])
	if n > maxFrame {
		s.close()
		return &rpcStatus{code: CodeInternal, msg: fmt.Sprintf("a response message of %d bytes exceeds %d", n, maxFrame)}
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(s.resp.Body, buf); err != nil {
		st := s.lost(err)
		s.close()
		return st
	}
	if err := decode(buf); err != nil {
		s.close()
		return &rpcStatus{code: CodeInternal, msg: fmt.Sprintf("decode a response: %v", err)}
	}
	return nil
}

// drain reads to the end of a unary call and returns its status.
func (s *callStream) drain() error {
	if s.eof {
		return nil
	}
	var extra [1]byte
	if _, err := io.ReadFull(s.resp.Body, extra[:]); !errors.Is(err, io.EOF) {
		if err == nil {
			s.close()
			return &rpcStatus{code: CodeInternal, msg: "the server sent more than one response to a unary call"}
		}
		st := s.lost(err)
		s.close()
		return st
	}
	s.eof = true
	st := headerStatus(s.resp.Trailer)
	s.close()
	if st != nil && st.code != CodeOK {
		return st
	}
	return nil
}

func (s *callStream) close() {
	_ = s.resp.Body.Close()
	s.done()
}

// headerStatus reads grpc-status and grpc-message, or nil when absent.
func headerStatus(h http.Header) *rpcStatus {
	v := h.Get("Grpc-Status")
	if v == "" {
		return nil
	}
	code, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return &rpcStatus{code: CodeUnknown, msg: "malformed grpc-status " + strconv.Quote(v)}
	}
	msg := h.Get("Grpc-Message")
	if m, err := url.PathUnescape(msg); err == nil {
		msg = m
	}
	return &rpcStatus{code: Code(code), msg: msg, info: parseStatusDetails(h.Get("Grpc-Status-Details-Bin"))}
}

// transportStatus classifies a failure to start a call: the caller's
// context, or no server at the address.
func (c *conn) transportStatus(ctx context.Context, err error) *rpcStatus {
	settleNearDeadline(ctx)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &rpcStatus{code: CodeDeadlineExceeded, msg: "deadline exceeded"}
	case ctx.Err() != nil:
		return &rpcStatus{code: CodeCanceled, msg: "call canceled"}
	}
	if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "dial" {
		return &rpcStatus{code: CodeUnavailable, msg: err.Error(), noServer: true}
	}
	if msg := c.tlsMismatch(err); msg != "" {
		return &rpcStatus{code: CodeUnavailable, msg: msg}
	}
	return &rpcStatus{code: CodeUnavailable, msg: fmt.Sprintf("lost the connection to the Atlas server at %s (%v): the server stopped or was killed", c.target(), err)}
}

// tlsMismatch explains a connection that failed because the two sides
// disagree on TLS: a certificate the client does not trust, a TLS client
// of a plaintext server, or a plaintext client of a TLS server; "" for
// any other failure.
func (c *conn) tlsMismatch(err error) string {
	tlsClient := strings.HasPrefix(c.base, "https://")
	_, unknownCA := errors.AsType[x509.UnknownAuthorityError](err)
	_, badHost := errors.AsType[x509.HostnameError](err)
	_, invalid := errors.AsType[x509.CertificateInvalidError](err)
	_, verify := errors.AsType[*tls.CertificateVerificationError](err)
	_, notTLS := errors.AsType[tls.RecordHeaderError](err)
	switch {
	case unknownCA || badHost || invalid || verify:
		return fmt.Sprintf("the Atlas server at %s presents a TLS certificate this client does not trust (%v): set %s to the server's certificate file (a server started with TLS and no certificate of its own keeps it in $ATLAS_HOME/tls/connect-cert.pem and prints its fingerprint), or use a certificate the system trusts", c.target(), err, EnvConnectCA)
	case tlsClient && (notTLS || strings.Contains(err.Error(), "first record does not look like a TLS handshake")):
		return fmt.Sprintf("the Atlas server at %s does not speak TLS (%v): connect without use_ssl=true and without a token parameter, or start the server with TLS", c.target(), err)
	case !tlsClient && servesTLS(c.target()):
		return fmt.Sprintf("the Atlas server at %s serves TLS and this client connected without it (%v): add use_ssl=true to the sc:// address (and %s for a self-signed certificate)", c.target(), err, EnvConnectCA)
	}
	return ""
}

// servesTLS probes whether the server at target completes a TLS
// handshake: a plaintext client's first call to a TLS listener fails with
// a bare EOF, which alone reads like a server that went away. The probe
// verifies nothing; it only tells the two failures apart.
func servesTLS(target string) bool {
	d := &net.Dialer{Timeout: time.Second}
	raw, err := d.Dial("tcp", target)
	if err != nil {
		return false
	}
	defer raw.Close()
	_ = raw.SetDeadline(time.Now().Add(time.Second))
	tc := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}) //nolint:gosec // a probe: no data is sent
	return tc.Handshake() == nil
}

// lost classifies a failure in the middle of a call: the caller's
// context, or the connection to the server lost (the server stopped or
// was killed).
func (s *callStream) lost(err error) *rpcStatus {
	settleNearDeadline(s.ctx)
	if s.ctx.Err() != nil {
		return s.conn.transportStatus(s.ctx, err)
	}
	return &rpcStatus{code: CodeUnavailable, msg: fmt.Sprintf("lost the connection to the Atlas server at %s during %s (%v): the server stopped or was killed", s.conn.target(), s.method, err)}
}

// deadlineSlack is how close to its deadline a call may fail and still
// count as timed out rather than lost.
const deadlineSlack = 250 * time.Millisecond

// settleNearDeadline waits out a deadline that is about to pass. The
// call's Grpc-Timeout gives the server the same deadline, rounded down
// to the millisecond, so the server can end the stream (RST_STREAM
// CANCEL) a moment before the client's own context expires; without
// this, a timed wait read "lost the connection".
func settleNearDeadline(ctx context.Context) {
	dl, ok := ctx.Deadline()
	if !ok || ctx.Err() != nil || time.Until(dl) > deadlineSlack {
		return
	}
	<-ctx.Done()
}

// target is the server's host:port.
func (c *conn) target() string { return strings.TrimPrefix(c.base, "http://") }

// httpCode maps an HTTP status to a gRPC code as gRPC clients do.
func httpCode(status int) Code {
	switch status {
	case http.StatusBadRequest:
		return CodeInternal
	case http.StatusUnauthorized, http.StatusForbidden:
		return 7 // PermissionDenied / Unauthenticated
	case http.StatusNotFound:
		return CodeUnimplemented
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return CodeUnavailable
	}
	return CodeUnknown
}
