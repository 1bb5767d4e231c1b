package functions

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// makeTimestampDefs are make_timestamp, make_timestamp_ltz,
// make_timestamp_ntz and their try_ forms, Spark's MakeTimestamp: from
// fields (year, month, day, hour, min, sec[, timezone]) or from a date
// (date[, time[, timezone]]; make_timestamp_ntz(date, time)). A wall
// clock of an LTZ timestamp is read in the timezone argument, else the
// session time zone. Under ANSI (Spark 4's default) invalid fields fail
// with DATETIME_FIELD_OUT_OF_BOUNDS; the try_ forms give NULL.
func makeTimestampDefs() []*Def {
	return []*Def{
		makeTimestamp("make_timestamp", tTimestamp, false),
		makeTimestamp("make_timestamp_ltz", tTimestamp, false),
		makeTimestamp("make_timestamp_ntz", tNTZ, false),
		makeTimestamp("try_make_timestamp", tTimestamp, true),
		makeTimestamp("try_make_timestamp_ltz", tTimestamp, true),
		makeTimestamp("try_make_timestamp_ntz", tNTZ, true),
	}
}

func makeTimestamp(name string, out arrow.DataType, try bool) *Def {
	ntz := out == tNTZ
	fields := &rowImpl{mayBeNull: try, resolve: makeFieldsSig(out, ntz), evalZone: func(loc *time.Location, v []any) (any, error) {
		t, err := timestampFromFields(v, ntz, try, loc)
		if err != nil || t == nil {
			return nil, err
		}
		return t, nil
	}}
	fromDate := &rowImpl{mayBeNull: try, resolve: makeFromDateSig(out, ntz), evalZone: func(loc *time.Location, v []any) (any, error) {
		if ntz {
			return v[0].(time.Time), nil
		}
		if len(v) == 3 {
			var err error
			if loc, err = zoneArg(v[2].(string)); err != nil {
				return nil, err
			}
		}
		return atZone(v[0].(time.Time), loc), nil
	}}
	d := &Def{Name: name, Group: "datetime", MinArgs: 1, MaxArgs: 7}
	if ntz {
		d.MinArgs, d.MaxArgs = 2, 6
	}
	d.Build = func(called string, a []expr.Expr) (expr.Expr, error) {
		switch {
		case len(a) == 6 || (len(a) == 7 && !ntz):
			return &rowCall{name: called, args: a, impl: fields}, nil
		case len(a) == 2 || (len(a) <= 3 && !ntz):
			return &rowCall{name: called, args: a, impl: fromDate}, nil
		}
		want := "[1, 3] or [6, 7]"
		if ntz {
			want = "2 or 6"
		}
		return nil, fmt.Errorf("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `%s` requires %s parameters but the actual number is %d. SQLSTATE: 42605", called, want, len(a))
	}
	d.ColumnName = func(called string, a []string) string {
		return makeTimestampColumn(called, a)
	}
	return d
}

// makeTimestampColumn is Spark's name for a make_timestamp call, which is
// not always the name as called: try_make_timestamp leaves out its
// timezone argument, and the date forms of the _ltz and _ntz variants
// are named after the expression they stand for.
func makeTimestampColumn(called string, a []string) string {
	plain := called + "(" + strings.Join(a, ", ") + ")"
	dateForm := len(a) <= 3
	switch {
	case called == "try_make_timestamp" && len(a) == 7:
		return called + "(" + strings.Join(a[:6], ", ") + ")"
	case dateForm && (called == "make_timestamp_ltz" || called == "try_make_timestamp_ltz"):
		return "make_timestamp(" + strings.Join(a, ", ") + ")"
	case dateForm && called == "try_make_timestamp_ntz":
		return called + "(make_timestamp_ntz(" + strings.Join(a, ", ") + "))"
	}
	return plain
}

// makeFieldsSig types (year, month, day, hour, min, sec[, timezone]):
// INT fields, seconds as DECIMAL(16,6), a string timezone.
func makeFieldsSig(out arrow.DataType, ntz bool) func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	return func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		want := make([]arrow.DataType, len(in))
		var err error
		for i, t := range in {
			switch {
			case i < 5:
				want[i], err = intFieldWant(i, t)
			case i == 5:
				want[i], err = secFieldWant(i, t, 16)
			case t.ID() == arrow.STRING || t.ID() == arrow.NULL:
				want[i] = tString
			default:
				err = fmt.Errorf("argument 7 requires a string time zone, got %s", types.Name(t))
			}
			if err != nil {
				return nil, nil, err
			}
		}
		return want, out, nil
	}
}

// makeFromDateSig types (date[, time[, timezone]]). Atlas has no TIME
// type yet, so a time argument is refused.
func makeFromDateSig(out arrow.DataType, ntz bool) func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	return func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		switch in[0].ID() {
		case arrow.DATE32, arrow.STRING, arrow.NULL, arrow.TIMESTAMP:
		default:
			return nil, nil, fmt.Errorf("argument 1 requires a date, got %s", types.Name(in[0]))
		}
		if len(in) >= 2 {
			return nil, nil, fmt.Errorf("the time argument (argument 2, %s) of the date form is not supported: Atlas has no TIME type yet", types.Name(in[1]))
		}
		return []arrow.DataType{tDate}, out, nil
	}
}

// timestampFromFields is MakeTimestamp.toMicros: the fields as a wall
// clock, sec = 60 with no fraction as the next minute (as PostgreSQL),
// then the instant in the zone (LTZ) or the wall clock itself (NTZ).
// Invalid fields are an error, or nil under try.
func timestampFromFields(v []any, ntz, try bool, loc *time.Location) (any, error) {
	var f [5]int64
	for i := range f {
		n, err := intField(v[i])
		if err != nil {
			return nil, err
		}
		f[i] = n
	}
	micros, err := secMicros(v[5], 16)
	if err != nil {
		return nil, err
	}
	total := int64(int32(micros)) // Spark: toUnscaledLong.toInt
	sec, nanos := floorDiv(total, 1_000_000), floorMod(total, 1_000_000)*1000
	var wall time.Time
	if sec == 60 && nanos == 0 {
		wall, err = localDateTime(f[0], f[1], f[2], f[3], f[4], 0, 0)
		wall = wall.Add(time.Minute)
	} else if sec == 60 {
		err = dtError("INVALID_FRACTION_OF_SECOND", "22023", "Valid range for seconds is [0, 60] (inclusive), but the provided value is %s. To avoid this error, use `try_make_timestamp`, which returns NULL on error. If you do not want to use the session default timestamp version of this function, use `try_make_timestamp_ntz` or `try_make_timestamp_ltz`.", microsString(micros))
	} else if wall, err = localDateTime(f[0], f[1], f[2], f[3], f[4], sec, nanos); err != nil {
		err = dtError("DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", "22023", "%s. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.", err)
	}
	if err != nil {
		if try {
			return nil, nil
		}
		return nil, err
	}
	t := wall
	if !ntz {
		if len(v) == 7 {
			if loc, err = zoneArg(v[6].(string)); err != nil {
				return nil, err
			}
		}
		t = atZone(wall, loc)
	}
	if s := t.Unix(); s > math.MaxInt64/1_000_000-1 || s < math.MinInt64/1_000_000+1 {
		return nil, errLongOverflow()
	}
	return t, nil
}

// microsString renders microseconds as DECIMAL(16,6) text: 60.000001.
func microsString(m int64) string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	return fmt.Sprintf("%s%d.%06d", sign, m/1_000_000, m%1_000_000)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }
