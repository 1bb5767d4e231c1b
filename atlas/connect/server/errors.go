package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/guard"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// Spark exception classes clients map errors to (PySpark reads the
// "classes" metadata of the ErrorInfo detail).
const (
	classAnalysis    = "org.apache.spark.sql.AnalysisException"
	classParse       = "org.apache.spark.sql.catalyst.parser.ParseException"
	classUnsupported = "java.lang.UnsupportedOperationException"
	classIllegalArg  = "java.lang.IllegalArgumentException"
	classSpark       = "org.apache.spark.SparkException"
)

// sparkClass finds the error class and SQLSTATE a message quotes.
var sparkClass = regexp.MustCompile(`\[([A-Z][A-Z_]*(?:\.[A-Z_]+)*)\].*SQLSTATE: ([0-9A-Z]{5})`)

// toStatus turns an engine or planner error into a gRPC status carrying
// the message, the gRPC code that fits it, and an ErrorInfo detail in
// Spark's shape (reason = exception class; errorClass, sqlState, classes).
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	if pe := guard.AsPanic(err); pe != nil {
		return panicStatus(pe)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return withInfo(codes.Canceled, "OPERATION_CANCELED", "HY008", classSpark, "operation interrupted: "+err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return withInfo(codes.DeadlineExceeded, "", "", classSpark, err.Error())
	}
	var ce *expr.CastError
	if errors.As(err, &ce) {
		return withParams(codes.InvalidArgument, ce.Class, ce.SQLState, ce.JavaClass, nil, err.Error())
	}
	if e := classify(err); e != nil {
		return withParams(codeOf(e), e.Class, e.State(), javaClassOf(e), e.Params, messageOf(e, err))
	}
	if planner.IsSQLError(err) {
		if pe, ok := errors.AsType[*parser.Error](err); ok && pe.Class != "" {
			return withInfo(codes.InvalidArgument, pe.Class, pe.SQLState, classParse, err.Error())
		}
		// A planning error that quotes Spark's class: "[CLASS] ... SQLSTATE: 42K0E".
		if m := sparkClass.FindStringSubmatch(err.Error()); m != nil {
			return withInfo(codes.InvalidArgument, m[1], m[2], classAnalysis, err.Error())
		}
		return withInfo(codes.InvalidArgument, "", "42000", classParse, err.Error())
	}
	return withInfo(codes.Internal, "", "", classSpark, err.Error())
}

// messageOf is the message of a classified error: "[CLASS] ...", with the
// context err adds around it.
func messageOf(e *sparkerr.Error, err error) string {
	msg := err.Error()
	if strings.Contains(msg, "["+e.Class+"]") {
		return msg
	}
	return "[" + e.Class + "] " + msg
}

// invalidArgument is a request error (a missing or malformed field).
func invalidArgument(err error) error {
	return withInfo(codes.InvalidArgument, "", "", classIllegalArg, err.Error())
}

// sessionChanged reports a client that saw another incarnation of the server.
func sessionChanged(id string) error {
	return withInfo(codes.FailedPrecondition, "INVALID_HANDLE.SESSION_CHANGED", "HY000", classSpark,
		fmt.Sprintf("[INVALID_HANDLE.SESSION_CHANGED] session %s: the server restarted since this client last saw it; create a new session (under the same session id it sees the streaming queries the server resumed; temp views and memory tables are gone)", id))
}

func withInfo(code codes.Code, errorClass, sqlState, class, msg string) error {
	return withParams(code, errorClass, sqlState, class, nil, msg)
}

// withParams is a status with Spark's ErrorInfo detail: reason = the
// exception class; metadata errorClass, sqlState, messageParameters (JSON)
// and classes, as Spark Connect's server sends them.
func withParams(code codes.Code, errorClass, sqlState, class string, params map[string]string, msg string) error {
	classes, _ := json.Marshal([]string{class})
	if params == nil {
		params = map[string]string{}
	}
	pj, _ := json.Marshal(params)
	md := map[string]string{"classes": string(classes), "messageParameters": string(pj)}
	if errorClass != "" {
		md["errorClass"] = errorClass
	}
	if sqlState != "" {
		md["sqlState"] = sqlState
	}
	st := status.New(code, msg)
	if d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: class, Domain: "org.apache.spark", Metadata: md}); err == nil {
		st = d
	}
	return st.Err()
}
