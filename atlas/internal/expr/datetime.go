package expr

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// ToTimestamp is Spark's to_timestamp(x[, format]). Without a format it is
// CAST(x AS TIMESTAMP); with one, a string is parsed with the Spark
// datetime pattern (see DatetimePattern). Atlas follows Spark 4's default
// ANSI mode: text that does not parse stops the query with
// CANNOT_PARSE_TIMESTAMP (CAST_INVALID_INPUT without a format); Try
// (try_to_timestamp) gives NULL instead. NULL stays NULL.
type ToTimestamp struct {
	X      Expr
	Format string // "" = none
	Try    bool
}

func (e *ToTimestamp) String() string {
	fn := "to_timestamp"
	if e.Try {
		fn = "try_to_timestamp"
	}
	if e.Format == "" {
		return fn + "(" + e.X.String() + ")"
	}
	return fn + "(" + e.X.String() + ", " + e.Format + ")"
}

// Bind compiles the format and resolves the argument.
func (e *ToTimestamp) Bind(s *arrow.Schema) (Bound, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, err
	}
	if e.Format == "" || x.Type().ID() != arrow.STRING {
		if err := checkCastable(x.Type(), types.Timestamp); err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
		return &toTimestampBound{x: x, cast: castTo(x, types.Timestamp), try: e.Try}, nil
	}
	p, err := ParseDatetimePattern(e.Format)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	return &toTimestampBound{x: x, pattern: p, try: e.Try}, nil
}

type toTimestampBound struct {
	x       Bound
	cast    Bound // without a pattern
	pattern *DatetimePattern
	try     bool
}

func (b *toTimestampBound) Type() arrow.DataType { return types.Timestamp }
func (b *toTimestampBound) Nullable() bool       { return true }
func (b *toTimestampBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	if b.pattern == nil {
		out, err := b.cast.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		if !b.try && out.NullN() > in.NullN() {
			for i := 0; i < in.Len(); i++ {
				if in.IsValid(i) && out.IsNull(i) {
					out.Release()
					return nil, fmt.Errorf("[CAST_INVALID_INPUT] The value '%s' of the type %q cannot be cast to \"TIMESTAMP\" because it is malformed. Correct the value as per the syntax, or change its target type. Use `try_to_timestamp` (or `try_cast`) to tolerate malformed input and return NULL instead", in.ValueStr(i), types.Name(in.DataType()))
				}
			}
		}
		return out, nil
	}
	strs := in.(*array.String)
	loc := c.Zone()
	out := array.NewTimestampBuilder(c.Mem, types.Timestamp)
	defer out.Release()
	out.Reserve(strs.Len())
	for i := 0; i < strs.Len(); i++ {
		if strs.IsNull(i) {
			out.AppendNull()
			continue
		}
		t, err := b.pattern.ParseIn(strs.Value(i), loc)
		if err != nil {
			if b.try {
				out.AppendNull()
				continue
			}
			return nil, fmt.Errorf("[CANNOT_PARSE_TIMESTAMP] Text '%s' could not be parsed with pattern '%s': %v. Use `try_to_timestamp` to tolerate invalid input string and return NULL instead", strs.Value(i), b.pattern.text, err)
		}
		out.Append(arrow.Timestamp(t.UnixMicro()))
	}
	return out.NewArray(), nil
}

// DateFormat is Spark's date_format(ts, format): the timestamp rendered in
// the session time zone with a Spark datetime pattern. A string
// argument is cast to a timestamp first.
type DateFormat struct {
	X      Expr
	Format string
}

func (e *DateFormat) String() string { return "date_format(" + e.X.String() + ", " + e.Format + ")" }

// Bind compiles the pattern and resolves the argument as a timestamp.
func (e *DateFormat) Bind(s *arrow.Schema) (Bound, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, err
	}
	if err := checkCastable(x.Type(), types.Timestamp); err != nil {
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	p, err := ParseDatetimePattern(e.Format)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	return &dateFormatBound{x: castTo(x, types.Timestamp), pattern: p}, nil
}

type dateFormatBound struct {
	x       Bound
	pattern *DatetimePattern
}

func (b *dateFormatBound) Type() arrow.DataType { return arrow.BinaryTypes.String }
func (b *dateFormatBound) Nullable() bool       { return true }
func (b *dateFormatBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	in, err := b.x.Eval(c, rec)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	ts := in.(*array.Timestamp)
	out := array.NewStringBuilder(c.Mem)
	defer out.Release()
	out.Reserve(ts.Len())
	var buf []byte
	loc := c.Zone()
	for i := 0; i < ts.Len(); i++ {
		if ts.IsNull(i) {
			out.AppendNull()
			continue
		}
		buf = b.pattern.AppendFormatIn(buf[:0], time.UnixMicro(int64(ts.Value(i))), loc)
		out.BinaryBuilder.Append(buf)
	}
	return out.NewArray(), nil
}

// CurrentTimestamp is Spark's current_timestamp(): the same instant for
// every row of a batch query, and for every row of one micro-batch of a
// streaming query (the batch's timestamp, kept in the offset log, so a
// replayed batch sees the same value).
type CurrentTimestamp struct{}

func (CurrentTimestamp) String() string { return "current_timestamp()" }

// Bind returns the timestamp column.
func (CurrentTimestamp) Bind(*arrow.Schema) (Bound, error) { return currentTimestampBound{}, nil }

type currentTimestampBound struct{}

func (currentTimestampBound) Type() arrow.DataType { return types.Timestamp }
func (currentTimestampBound) Nullable() bool       { return false }
func (currentTimestampBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	now := c.Now
	if now.IsZero() {
		return nil, fmt.Errorf("current_timestamp(): the evaluation context has no query time")
	}
	b := array.NewTimestampBuilder(c.Mem, types.Timestamp)
	defer b.Release()
	v := arrow.Timestamp(now.UnixMicro())
	for i := int64(0); i < rec.NumRows(); i++ {
		b.Append(v)
	}
	return b.NewArray(), nil
}
