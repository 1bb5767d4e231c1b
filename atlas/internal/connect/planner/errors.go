package planner

import (
	"errors"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// UnsupportedError reports a Spark Connect message or field Atlas does not
// implement (the server answers it with codes.Unimplemented).
type UnsupportedError struct {
	// What names the message, e.g. "relation Join" or "function percentile".
	What string
	// Hint says what to use instead, if anything.
	Hint string
}

// Error says what is not supported and what to do instead.
func (e *UnsupportedError) Error() string {
	msg := fmt.Sprintf("Atlas Connect does not support %s", e.What)
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

func unsupported(what, hint string) error { return &UnsupportedError{What: what, Hint: hint} }

// IsUnsupported tells whether err (or an error it wraps) is an UnsupportedError.
func IsUnsupported(err error) bool {
	_, ok := errors.AsType[*UnsupportedError](err)
	return ok
}

// IsSQLError tells whether err is a SQL syntax or planning error (one that
// names a line and column of the statement).
func IsSQLError(err error) bool {
	_, planning := errors.AsType[*sql.Error](err)
	_, syntax := errors.AsType[*parser.Error](err)
	return planning || syntax
}
