// Package sparkerr is Spark's error model as Atlas reports it: an error
// class (UNRESOLVED_COLUMN.WITH_SUGGESTION, TABLE_OR_VIEW_NOT_FOUND, ...),
// its SQLSTATE and its message parameters, as in Spark's
// error-conditions.json. The Connect server turns one into a gRPC status
// with a google.rpc.ErrorInfo detail; the client turns it back.
package sparkerr

import (
	"errors"
	"fmt"
	"strings"
)

// Error is an error with Spark's error class.
type Error struct {
	// Class is Spark's error class, e.g. "TABLE_OR_VIEW_NOT_FOUND".
	Class string
	// SQLState is the class's SQLSTATE, e.g. "42P01" (from the class when
	// empty).
	SQLState string
	// Params are the message parameters, by Spark's names.
	Params map[string]string
	// Message says what is wrong and where, without the "[CLASS] " prefix.
	Message string
	// Cause is the underlying error, if any.
	Cause error
}

// Error is Spark's rendering: "[CLASS] message".
func (e *Error) Error() string {
	if strings.HasPrefix(e.Message, "["+e.Class+"]") {
		return e.Message
	}
	return "[" + e.Class + "] " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// State is the SQLSTATE: the one set, else the class's.
func (e *Error) State() string {
	if e.SQLState != "" {
		return e.SQLState
	}
	return StateOf(e.Class)
}

// New returns an error of class with a formatted message and no
// parameters.
func New(class, format string, args ...any) *Error {
	return &Error{Class: class, Message: fmt.Sprintf(format, args...)}
}

// WithParams returns an error of class with params and a message.
func WithParams(class string, params map[string]string, format string, args ...any) *Error {
	return &Error{Class: class, Params: params, Message: fmt.Sprintf(format, args...)}
}

// Wrap gives cause Spark's class; the message is the cause's.
func Wrap(class string, params map[string]string, cause error) *Error {
	return &Error{Class: class, Params: params, Message: cause.Error(), Cause: cause}
}

// As finds the first *Error in err's chain.
func As(err error) (*Error, bool) {
	e, ok := errors.AsType[*Error](err)
	return e, ok
}

// StateOf is the SQLSTATE of a Spark error class (of its main class when
// the subclass is not listed), "" when unknown.
func StateOf(class string) string {
	if s, ok := states[class]; ok {
		return s
	}
	if i := strings.IndexByte(class, '.'); i > 0 {
		return states[class[:i]]
	}
	return ""
}

// states maps Spark 4.0 error classes (common/utils/.../error-conditions.json)
// to their SQLSTATE.
var states = map[string]string{
	"UNRESOLVED_COLUMN":                          "42703",
	"UNRESOLVED_ROUTINE":                         "42883",
	"TABLE_OR_VIEW_NOT_FOUND":                    "42P01",
	"SCHEMA_NOT_FOUND":                           "42704",
	"FIELD_NOT_FOUND":                            "42704",
	"CANNOT_RESOLVE_DATAFRAME_COLUMN":            "42704",
	"TABLE_OR_VIEW_ALREADY_EXISTS":               "42P07",
	"TEMP_TABLE_OR_VIEW_ALREADY_EXISTS":          "42P07",
	"PARSE_SYNTAX_ERROR":                         "42601",
	"DIVIDE_BY_ZERO":                             "22012",
	"PATH_NOT_FOUND":                             "42K03",
	"PATH_ALREADY_EXISTS":                        "42K04",
	"NUM_COLUMNS_MISMATCH":                       "42826",
	"INCOMPATIBLE_COLUMN_TYPE":                   "42825",
	"INCOMPATIBLE_DATA_FOR_TABLE":                "KD000",
	"INSERT_COLUMN_ARITY_MISMATCH":               "21S01",
	"CAST_INVALID_INPUT":                         "22018",
	"CAST_OVERFLOW":                              "22003",
	"ARITHMETIC_OVERFLOW":                        "22003",
	"DATATYPE_MISMATCH":                          "42K09",
	"UNSUPPORTED_FEATURE":                        "0A000",
	"UNSUPPORTED_DATA_SOURCE_FOR_DIRECT_QUERY":   "0A000",
	"UNABLE_TO_INFER_SCHEMA":                     "42KD9",
	"MISSING_AGGREGATION":                        "42803",
	"AMBIGUOUS_REFERENCE":                        "42704",
	"COLUMN_ALREADY_EXISTS":                      "42711",
	"INVALID_PARAMETER_VALUE":                    "22023",
	"INVALID_HANDLE":                             "HY000",
	"OPERATION_CANCELED":                         "HY008",
	"SQL_CONF_NOT_FOUND":                         "42K0I",
	"INTERNAL_ERROR":                             "XX000",
	"WRONG_NUM_ARGS":                             "42605",
	"DATA_SOURCE_NOT_FOUND":                      "42K02",
	"UNSUPPORTED_SAVE_MODE":                      "0A000",
	"INVALID_SAVE_MODE":                          "42000",
	"NOT_SUPPORTED_COMMAND_WITHOUT_HIVE_SUPPORT": "0A000",
	"MALFORMED_RECORD_IN_PARSING":                "22023",
	"INVALID_CORRUPT_RECORD_TYPE":                "42804",
}
