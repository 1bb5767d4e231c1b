package atlas

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strings"
)

// Sentinels for errors.Is on a *ServerError: it matches the sentinel of
// its Spark error class (the main class, so UNRESOLVED_COLUMN.WITH_SUGGESTION
// is ErrUnresolvedColumn).
var (
	ErrUnresolvedColumn      = &ServerError{ErrorClass: "UNRESOLVED_COLUMN"}
	ErrTableOrViewNotFound   = &ServerError{ErrorClass: "TABLE_OR_VIEW_NOT_FOUND"}
	ErrParseSyntax           = &ServerError{ErrorClass: "PARSE_SYNTAX_ERROR"}
	ErrUnresolvedRoutine     = &ServerError{ErrorClass: "UNRESOLVED_ROUTINE"}
	ErrDivideByZero          = &ServerError{ErrorClass: "DIVIDE_BY_ZERO"}
	ErrPathNotFound          = &ServerError{ErrorClass: "PATH_NOT_FOUND"}
	ErrPathAlreadyExists     = &ServerError{ErrorClass: "PATH_ALREADY_EXISTS"}
	ErrTableAlreadyExists    = &ServerError{ErrorClass: "TABLE_OR_VIEW_ALREADY_EXISTS"}
	ErrUnsupportedFeature    = &ServerError{ErrorClass: "UNSUPPORTED_FEATURE"}
	ErrCastInvalidInput      = &ServerError{ErrorClass: "CAST_INVALID_INPUT"}
	ErrNumColumnsMismatch    = &ServerError{ErrorClass: "NUM_COLUMNS_MISMATCH"}
	ErrInvalidParameterValue = &ServerError{ErrorClass: "INVALID_PARAMETER_VALUE"}
	// ErrMalformedRecord: a JSON or CSV read with the option mode FAILFAST
	// met a malformed line (Spark's MALFORMED_RECORD_IN_PARSING).
	ErrMalformedRecord = &ServerError{ErrorClass: "MALFORMED_RECORD_IN_PARSING"}
	// ErrSessionChanged: the server restarted since this Session last
	// reached it. Its temp views and memory tables are gone; open a new
	// Session (Builder().GetOrCreate()) to go on. Streaming queries the
	// server resumed are there under the same session id, and a
	// StreamingQuery handle of the old Session can still Stop its query.
	ErrSessionChanged = &ServerError{ErrorClass: "INVALID_HANDLE.SESSION_CHANGED"}
)

// Is matches a sentinel of the same main error class (errors.Is(err,
// atlas.ErrTableOrViewNotFound)).
func (e *ServerError) Is(target error) bool {
	t, ok := target.(*ServerError)
	if !ok || t.ErrorClass == "" || t.Message != "" {
		return false
	}
	main, _, _ := strings.Cut(e.ErrorClass, ".")
	return e.ErrorClass == t.ErrorClass || main == t.ErrorClass
}

// errorInfo is what Spark puts in a google.rpc.ErrorInfo detail of
// grpc-status-details-bin: reason (the exception class) and metadata
// errorClass, sqlState, messageParameters (JSON).
type errorInfo struct {
	class, sqlState string
	params          map[string]string
}

// parseStatusDetails reads the ErrorInfo of a grpc-status-details-bin
// trailer (base64 of a google.rpc.Status); nil when there is none.
func parseStatusDetails(v string) *errorInfo {
	if v == "" {
		return nil
	}
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
	if err != nil {
		return nil
	}
	var info *errorInfo
	eachField(b, func(num int, val []byte) {
		if num != 3 { // google.rpc.Status.details (Any)
			return
		}
		var typeURL string
		var value []byte
		eachField(val, func(n int, x []byte) {
			switch n {
			case 1:
				typeURL = string(x)
			case 2:
				value = x
			}
		})
		if strings.HasSuffix(typeURL, "/google.rpc.ErrorInfo") && info == nil {
			info = decodeErrorInfo(value)
		}
	})
	return info
}

func decodeErrorInfo(b []byte) *errorInfo {
	info := &errorInfo{}
	eachField(b, func(num int, val []byte) {
		if num != 3 { // metadata map entry
			return
		}
		var k, v string
		eachField(val, func(n int, x []byte) {
			if n == 1 {
				k = string(x)
			} else if n == 2 {
				v = string(x)
			}
		})
		switch k {
		case "errorClass":
			info.class = v
		case "sqlState":
			info.sqlState = v
		case "messageParameters":
			_ = json.Unmarshal([]byte(v), &info.params)
		}
	})
	return info
}

// eachField calls f with the number and bytes of each length-delimited
// field of a protobuf message, skipping varint and fixed fields.
func eachField(b []byte, f func(num int, val []byte)) {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 {
			return
		}
		b = b[n:]
		switch tag & 7 {
		case 0:
			_, n = binary.Uvarint(b)
			if n <= 0 {
				return
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return
			}
			b = b[8:]
		case 5:
			if len(b) < 4 {
				return
			}
			b = b[4:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return
			}
			f(int(tag>>3), b[n:n+int(l)])
			b = b[n+int(l):]
		default:
			return
		}
	}
}
