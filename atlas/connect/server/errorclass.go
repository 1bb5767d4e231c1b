package server

import (
	"errors"
	"io/fs"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// classify finds the Spark error class of err: the one it carries (the
// planner and engine raise unknown tables, columns and paths as
// *sparkerr.Error), else the class of an error type the engine returns
// without one.
func classify(err error) *sparkerr.Error {
	if e, ok := sparkerr.As(err); ok {
		return e
	}
	if u, ok := errors.AsType[*planner.UnsupportedError](err); ok {
		if name, ok := strings.CutPrefix(u.What, "function "); ok {
			return &sparkerr.Error{Class: "UNRESOLVED_ROUTINE", Message: err.Error(), Cause: err,
				Params: map[string]string{"routineName": "`" + name + "`", "searchPath": "[`system`.`builtin`, `system`.`session`]"}}
		}
		return &sparkerr.Error{Class: "UNSUPPORTED_FEATURE", Message: err.Error(), Cause: err}
	}
	if pe, ok := errors.AsType[*parser.Error](err); ok {
		if pe.Class != "" {
			return &sparkerr.Error{Class: pe.Class, SQLState: pe.SQLState, Message: err.Error(), Cause: err}
		}
		return &sparkerr.Error{Class: "PARSE_SYNTAX_ERROR", Message: err.Error(), Cause: err}
	}
	msg := err.Error()
	if m := sparkClass.FindStringSubmatch(msg); m != nil {
		return &sparkerr.Error{Class: m[1], SQLState: m[2], Message: msg, Cause: err}
	}
	switch {
	case errors.Is(err, lakehouse.ErrNoSuchTable):
		return &sparkerr.Error{Class: "TABLE_OR_VIEW_NOT_FOUND", Message: msg, Cause: err}
	case errors.Is(err, fs.ErrNotExist):
		return &sparkerr.Error{Class: "PATH_NOT_FOUND", Message: msg, Cause: err}
	}
	return nil
}

// codeOf is the one gRPC code of an error class, by its kind: not found,
// already exists, not supported, a bad query, bad data or a limit (SQLSTATE
// classes 42, 22, 21, 54), cancelled; anything else is internal.
func codeOf(e *sparkerr.Error) codes.Code {
	main, _, _ := strings.Cut(e.Class, ".")
	state := e.State()
	switch {
	case strings.HasSuffix(main, "_NOT_FOUND"):
		return codes.NotFound
	case strings.HasSuffix(main, "_ALREADY_EXISTS"):
		return codes.AlreadyExists
	case main == "UNSUPPORTED_FEATURE" || strings.HasPrefix(state, "0A"):
		return codes.Unimplemented
	case main == "OPERATION_CANCELED":
		return codes.Canceled
	case strings.HasPrefix(state, "42"), strings.HasPrefix(state, "22"), strings.HasPrefix(state, "21"), strings.HasPrefix(state, "54"):
		return codes.InvalidArgument
	}
	return codes.Internal
}

// javaClassOf is the exception class PySpark maps the error to.
func javaClassOf(e *sparkerr.Error) string {
	main, _, _ := strings.Cut(e.Class, ".")
	switch {
	case main == "PARSE_SYNTAX_ERROR":
		return classParse
	case main == "UNSUPPORTED_FEATURE":
		return classUnsupported
	case main == "DIVIDE_BY_ZERO", main == "ARITHMETIC_OVERFLOW":
		return "org.apache.spark.SparkArithmeticException"
	case strings.HasPrefix(e.State(), "42"):
		return classAnalysis
	}
	return classSpark
}
