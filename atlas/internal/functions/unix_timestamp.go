package functions

import (
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// defaultTimestampFormat is the pattern unix_timestamp and from_unixtime
// use without one.
const defaultTimestampFormat = "yyyy-MM-dd HH:mm:ss"

// unixTimestampDefs are unix_timestamp, to_unix_timestamp and
// from_unixtime: seconds since the epoch from a string parsed with a
// Spark datetime pattern (a wall clock in the session time zone), a date
// (its midnight there) or a timestamp, and back to text. Under ANSI text
// that does not parse fails with CANNOT_PARSE_TIMESTAMP.
func unixTimestampDefs() []*Def {
	toUnix := &rowImpl{resolve: toUnixSig, evalZone: func(loc *time.Location, v []any) (any, error) {
		f := defaultTimestampFormat
		if len(v) == 2 {
			f = v[1].(string)
		}
		return unixSeconds(v[0], f, loc)
	}}
	named := func(called string, a []string) string {
		if len(a) == 0 {
			a = []string{"current_timestamp()"}
		}
		return withDefaults(2, defaultTimestampFormat)(called, a)
	}
	unix := &Def{Name: "unix_timestamp", Group: "datetime", MinArgs: 0, MaxArgs: 2, ColumnName: named, Build: func(called string, a []expr.Expr) (expr.Expr, error) {
		if len(a) == 0 {
			a = []expr.Expr{expr.CurrentTimestamp{}}
		}
		return &rowCall{name: called, args: a, impl: toUnix}, nil
	}}
	to := row("to_unix_timestamp", "datetime", 1, 2, toUnix)
	to.ColumnName = named
	from := row("from_unixtime", "datetime", 1, 2, &rowImpl{resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		want := []arrow.DataType{tLong, tString}
		if in[0].ID() == arrow.DATE32 || in[0].ID() == arrow.TIMESTAMP || in[0].ID() == arrow.BOOL {
			return nil, nil, unexpectedType(1, "BIGINT", in[0])
		}
		return want[:len(in)], tString, nil
	}, evalZone: func(loc *time.Location, v []any) (any, error) {
		f := defaultTimestampFormat
		if len(v) == 2 {
			f = v[1].(string)
		}
		p, err := pattern(f)
		if err != nil {
			return nil, err
		}
		m, ok := addMulExact(0, v[0].(int64), 1_000_000)
		if !ok {
			return nil, errLongOverflow()
		}
		return p.Format(wallIn(time.UnixMicro(m), loc)), nil
	}})
	from.ColumnName = withDefaults(2, defaultTimestampFormat)
	return []*Def{unix, to, from}
}

// toUnixSig: a string, a date (read as its midnight timestamp), or a
// timestamp (with or without a zone), and a string pattern.
func toUnixSig(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	want := make([]arrow.DataType, len(in))
	switch in[0].ID() {
	case arrow.STRING, arrow.TIMESTAMP, arrow.NULL:
	case arrow.DATE32:
		want[0] = tTimestamp
	default:
		return nil, nil, unexpectedType(1, "(\"STRING\" or \"DATE\" or \"TIMESTAMP\" or \"TIMESTAMP_NTZ\")", in[0])
	}
	if len(in) == 2 {
		want[1] = tString
	}
	return want, tLong, nil
}

// unixSeconds is Spark's ToTimestamp with a seconds result.
func unixSeconds(x any, format string, loc *time.Location) (any, error) {
	if t, ok := x.(time.Time); ok {
		return floorDiv(t.UnixMicro(), 1_000_000), nil
	}
	s := x.(string)
	p, err := pattern(format)
	if err != nil {
		return nil, err
	}
	t, err := p.Parse(s)
	if err != nil {
		return nil, dtError("CANNOT_PARSE_TIMESTAMP", "22007", "Text '%s' could not be parsed with the pattern '%s': %v. Use `try_to_timestamp` to tolerate invalid input string and return NULL instead.", s, format, err)
	}
	if !p.HasZone() {
		t = atZone(t, loc)
	}
	return floorDiv(t.UnixMicro(), 1_000_000), nil
}

// patterns caches compiled datetime patterns by their text.
var patterns sync.Map

// pattern compiles a Spark datetime pattern once.
func pattern(f string) (*expr.DatetimePattern, error) {
	if p, ok := patterns.Load(f); ok {
		return p.(*expr.DatetimePattern), nil
	}
	p, err := expr.ParseDatetimePattern(f)
	if err != nil {
		return nil, fmt.Errorf("the pattern '%s': %w", f, err)
	}
	patterns.Store(f, p)
	return p, nil
}
