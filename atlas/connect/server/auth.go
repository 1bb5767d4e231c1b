package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/atlas-lakehouse/atlas/atlas/internal/authtoken"
)

// OwnerPrincipal is the principal of the token a server generates for
// itself (Config.Tokens empty): the one owner of a single-user daemon.
const OwnerPrincipal = "owner"

// authenticator checks the bearer token of every call, as Spark Connect's
// pre-shared token (spark.connect.authenticate.token) is checked: the
// client sends "Authorization: Bearer <token>". Each accepted token names
// a principal; sessions belong to it.
type authenticator struct {
	// tokens are the accepted tokens and their principals; none accepts
	// every call as the empty principal (Config.NoAuth).
	tokens []principalToken
	// where tells a refused client where the token is (Config.TokenFile).
	where string
}

type principalToken struct{ principal, token string }

// minTokenLen is the shortest token accepted in Config.Tokens.
const minTokenLen = 16

// authenticator builds the configured authenticator and returns the
// owner's token (the one generated when Tokens is empty).
func (c Config) authenticator() (*authenticator, string, error) {
	if c.NoAuth {
		if len(c.Tokens) > 0 {
			return nil, "", fmt.Errorf("atlas connect: NoAuth and Tokens are both set: keep one")
		}
		return &authenticator{}, "", nil
	}
	tokens := c.Tokens
	if len(tokens) == 0 {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, "", fmt.Errorf("atlas connect: generate a token: %w", err)
		}
		tokens = map[string]string{OwnerPrincipal: base64.RawURLEncoding.EncodeToString(b[:])}
	}
	a := &authenticator{where: c.TokenFile}
	seen := map[string]string{}
	for _, p := range slices.Sorted(maps.Keys(tokens)) {
		t := tokens[p]
		switch {
		case p == "":
			return nil, "", fmt.Errorf("atlas connect: a token has an empty principal name")
		case len(t) < minTokenLen:
			return nil, "", fmt.Errorf("atlas connect: the token of principal %q is shorter than %d characters", p, minTokenLen)
		case seen[t] != "":
			return nil, "", fmt.Errorf("atlas connect: principals %q and %q have the same token", seen[t], p)
		}
		seen[t] = p
		a.tokens = append(a.tokens, principalToken{p, t})
	}
	return a, tokens[OwnerPrincipal], nil
}

// owner is the principal that inherits the records of queries started
// before the server authenticated its callers: OwnerPrincipal when it has
// a token, the only principal when there is one, else none ("").
func (a *authenticator) owner() string {
	for _, pt := range a.tokens {
		if pt.principal == OwnerPrincipal {
			return OwnerPrincipal
		}
	}
	if len(a.tokens) == 1 {
		return a.tokens[0].principal
	}
	return ""
}

type principalKey struct{}

// principal is the authenticated principal of a call ("" without
// authentication).
func principal(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// authenticate returns ctx with the caller's principal, or an
// UNAUTHENTICATED error saying where the token is.
func (a *authenticator) authenticate(ctx context.Context) (context.Context, error) {
	if len(a.tokens) == 0 {
		return ctx, nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return nil, status.Errorf(codes.Unauthenticated,
			"atlas connect: this server requires a token (Authorization: Bearer <token>; Spark Connect clients: sc://host:port/;token=<token>). %s", a.hint())
	}
	scheme, tok, _ := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return nil, status.Errorf(codes.Unauthenticated,
			"atlas connect: the Authorization header is not a Bearer token. %s", a.hint())
	}
	tok = strings.TrimSpace(tok)
	for _, pt := range a.tokens {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(pt.token)) == 1 {
			return context.WithValue(ctx, principalKey{}, pt.principal), nil
		}
	}
	return nil, status.Errorf(codes.Unauthenticated, "atlas connect: the token is not valid. %s", a.hint())
}

func (a *authenticator) hint() string {
	if a.where == "" {
		return "Ask the server's owner for its token."
	}
	return fmt.Sprintf("The server's token is in %s (readable by its owner only); the Atlas client reads it by itself, or from $%s.", a.where, authtoken.Env)
}

func (a *authenticator) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	ctx, err := a.authenticate(ctx)
	if err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (a *authenticator) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx, err := a.authenticate(ss.Context())
	if err != nil {
		return err
	}
	return handler(srv, &principalStream{ServerStream: ss, ctx: ctx})
}

// principalStream carries the authenticated context into a stream handler.
type principalStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *principalStream) Context() context.Context { return s.ctx }
