package functions

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// datetimeMakeDefs defines the make_* and try_* datetime constructors, current_* and unix_* functions.
func datetimeMakeDefs() []*Def {
	var out []*Def
	for _, g := range []func() []*Def{makeTimestampDefs, makeIntervalDefs, epochDefs, unixTimestampDefs, dateNameDefs, currentDefs, toTimestampKindDefs, castAliasDefs, zoneConvertDefs, timeBucketDefs} {
		out = append(out, g()...)
	}
	return out
}

// tNTZ is Spark's TimestampNTZType: the microseconds of a wall clock,
// held as if it were UTC, without a time zone.
var tNTZ = &arrow.TimestampType{Unit: arrow.Microsecond}

// dtError is a Spark error of class with its SQLSTATE, the message
// ending in " SQLSTATE: state" as Spark renders it.
func dtError(class, state, format string, args ...any) error {
	return &sparkerr.Error{Class: class, SQLState: state, Message: "[" + class + "] " + fmt.Sprintf(format, args...) + " SQLSTATE: " + state}
}

// errLongOverflow is java.lang.ArithmeticException("long overflow") from
// Math.multiplyExact/addExact, which Spark raises as an overflow.
func errLongOverflow() error {
	return dtError("ARITHMETIC_OVERFLOW", "22003", "long overflow. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.")
}
