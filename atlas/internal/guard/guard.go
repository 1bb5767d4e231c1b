// Package guard turns a panic into an error, so that one bad request or
// one failing query cannot take down the process that serves every other
// one. A recovered panic becomes a *PanicError holding the panic value and
// the goroutine's stack, for the one log line that reports it.
//
// Only panics are recoverable: a Go stack overflow, a concurrent map
// write or running out of memory still ends the process. The parser's and
// the planners' depth limits keep requests away from the first.
package guard

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
)

// PanicError is a panic recovered in Where.
type PanicError struct {
	// Where names the goroutine's work ("ExecutePlan", "streaming query
	// run loop").
	Where string
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack when the panic was recovered.
	Stack []byte
}

// Error says that an internal error ended the work, and why.
func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error in %s: %v", e.Where, e.Value)
}

// Unwrap returns the panic value when it is an error (a runtime error,
// for one).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// StackLine is the stack on one line (frames separated by " | "), for a
// log that keeps one line per event.
func (e *PanicError) StackLine() string {
	lines := strings.Split(strings.TrimSpace(string(e.Stack)), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, " | ")
}

// Recovered makes the PanicError of p, recovered in where.
func Recovered(where string, p any) *PanicError {
	return &PanicError{Where: where, Value: p, Stack: debug.Stack()}
}

// Recover is deferred by a function that returns an error through errp:
// a panic in the function (or what it calls on its goroutine) is
// recovered and returned as a *PanicError instead.
//
//	func work() (err error) {
//		defer guard.Recover("work", &err)
//		...
//	}
func Recover(where string, errp *error) {
	if p := recover(); p != nil {
		*errp = Recovered(where, p)
	}
}

// AsPanic returns the PanicError err is or wraps, or nil.
func AsPanic(err error) *PanicError {
	var pe *PanicError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}
