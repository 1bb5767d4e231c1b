package engine

import (
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Column is a column expression, as pyspark.sql.Column: built with Col,
// Lit, FromJSON, Window, Count... and combined with its methods.
type Column struct {
	e   expr.Expr
	agg *expr.AggFunc
	err error
}

func newCol(e expr.Expr) Column { return Column{e: e} }

func errCol(err error) Column { return Column{err: err, e: expr.Lit(nil)} }

// String renders the expression.
func (c Column) String() string {
	if c.agg != nil {
		return c.agg.Name()
	}
	return c.e.String()
}

// Col refers to a column by name; "data.ts" selects a struct field and
// "data.*" all fields of a struct (in Select).
func Col(name string) Column {
	if name == "*" {
		return newCol(&expr.Star{})
	}
	if len(name) > 2 && name[len(name)-2:] == ".*" {
		return newCol(&expr.Star{Qualifier: name[:len(name)-2]})
	}
	return newCol(expr.Col(name))
}

// Lit is a constant column: nil, bool, int, int64, float64, string,
// time.Time or time.Duration.
func Lit(v any) Column { return newCol(expr.Lit(v)) }

// Alias names the column, as Column.alias in PySpark.
func (c Column) Alias(name string) Column {
	if c.agg != nil {
		a := *c.agg
		a.As = name
		return Column{agg: &a, e: c.e, err: c.err}
	}
	return Column{e: &expr.Alias{Expr: c.e, Name: name}, err: c.err}
}

// As is Alias.
func (c Column) As(name string) Column { return c.Alias(name) }

// Cast converts to a Spark SQL type: "string", "timestamp", "bigint", "double"...
// It is an explicit cast: under spark.sql.ansi.enabled (true unless the
// session sets it to false, as in Spark 4) a string that is not a number
// or boolean of the type, or a number out of its range, fails the query
// with CAST_INVALID_INPUT or CAST_OVERFLOW; TryCast gives NULL instead.
func (c Column) Cast(typeName string) Column {
	if _, err := types.FromName(typeName); err != nil {
		return errCol(fmt.Errorf("cast(%s): %w", c, err))
	}
	return c.derive(&expr.Cast{X: c.e, TypeName: typeName})
}

// TryCast is Cast that gives NULL where a value does not convert (a
// malformed string, a number out of the target's range), as Spark's
// try_cast and PySpark's Column.try_cast; Cast fails the query there under
// spark.sql.ansi.enabled (the default).
func (c Column) TryCast(typeName string) Column {
	return c.CastMode(typeName, expr.EvalTry)
}

// CastMode is Cast with Spark's eval mode given explicitly (Spark
// Connect's Expression.Cast.eval_mode): expr.EvalDefault follows the
// session's spark.sql.ansi.enabled.
func (c Column) CastMode(typeName string, mode expr.EvalMode) Column {
	if _, err := types.FromName(typeName); err != nil {
		return errCol(fmt.Errorf("cast(%s): %w", c, err))
	}
	return c.derive(&expr.Cast{X: c.e, TypeName: typeName, Mode: mode})
}

// GetField selects a struct field, as col("window").getField("start").
func (c Column) GetField(name string) Column {
	ref, ok := c.e.(*expr.ColumnRef)
	if !ok {
		return errCol(fmt.Errorf("getField(%q): only a column reference's fields can be selected", name))
	}
	return c.derive(&expr.ColumnRef{Parts: append(append([]string{}, ref.Parts...), name)})
}

func (c Column) derive(e expr.Expr) Column { return Column{e: e, err: c.err} }

func (c Column) bin(op string, other any) Column {
	o := toColumn(other)
	err := c.err
	if err == nil {
		err = o.err
	}
	return Column{e: expr.Bin(op, c.e, o.e), err: err}
}

func toColumn(v any) Column {
	switch x := v.(type) {
	case Column:
		return x
	case *Column:
		return *x
	}
	return Lit(v)
}

// EqualTo is ==. Other arguments may be Columns or Go values (literals).
func (c Column) EqualTo(other any) Column { return c.bin("=", other) }

// Eq is EqualTo.
func (c Column) Eq(other any) Column { return c.bin("=", other) }

// NotEqual is !=.
func (c Column) NotEqual(other any) Column { return c.bin("!=", other) }

// Gt is >.
func (c Column) Gt(other any) Column { return c.bin(">", other) }

// Geq is >=.
func (c Column) Geq(other any) Column { return c.bin(">=", other) }

// Lt is <.
func (c Column) Lt(other any) Column { return c.bin("<", other) }

// Leq is <=.
func (c Column) Leq(other any) Column { return c.bin("<=", other) }

// And is logical AND.
func (c Column) And(other Column) Column { return c.bin("AND", other) }

// Or is logical OR.
func (c Column) Or(other Column) Column { return c.bin("OR", other) }

// Not negates a boolean column.
func Not(c Column) Column { return c.derive(&expr.Not{X: c.e}) }

// Plus is +.
func (c Column) Plus(other any) Column { return c.bin("+", other) }

// Minus is -.
func (c Column) Minus(other any) Column { return c.bin("-", other) }

// Multiply is *.
func (c Column) Multiply(other any) Column { return c.bin("*", other) }

// Divide is / (always double, as in Spark).
func (c Column) Divide(other any) Column { return c.bin("/", other) }

// Mod is %.
func (c Column) Mod(other any) Column { return c.bin("%", other) }

// IsNull tests for null.
func (c Column) IsNull() Column { return c.derive(&expr.IsNull{X: c.e}) }

// IsNotNull tests for not null.
func (c Column) IsNotNull() Column { return c.derive(&expr.IsNull{X: c.e, Negate: true}) }

// IsIn tests membership in a list of values.
func (c Column) IsIn(values ...any) Column {
	list := make([]expr.Expr, len(values))
	for i, v := range values {
		list[i] = toColumn(v).e
	}
	return c.derive(&expr.In{X: c.e, List: list})
}

// Desc orders descending in OrderBy.
func (c Column) Desc() Column { return c.derive(&sortExpr{Expr: c.e, desc: true}) }

// Asc orders ascending in OrderBy.
func (c Column) Asc() Column { return c.derive(&sortExpr{Expr: c.e}) }

// sortExpr carries a direction through OrderBy.
type sortExpr struct {
	expr.Expr
	desc bool
}

// FromJSON parses a JSON string column with a Spark DDL schema
// ("user_id string, event string, ts timestamp"), as from_json in
// PERMISSIVE mode: malformed records give nulls and are counted in the
// progress metric numMalformedRows; they never stop the query.
func FromJSON(c Column, schema string) Column {
	s, err := types.ParseDDL(schema)
	if err != nil {
		return errCol(fmt.Errorf("from_json: %w", err))
	}
	return c.derive(&expr.FromJSON{X: c.e, Schema: s})
}

// FromAvro reads a binary column of Avro values with an Avro JSON schema,
// as from_avro(data, jsonFormatSchema, options). Options are Spark's mode
// (FAILFAST, the default, fails the query at the first value that cannot
// be read; PERMISSIVE reads it as null) and Atlas's framing: "none" (bare
// Avro binary, as Spark), "single-object" (C3 01 + the schema's 8-byte
// CRC-64-AVRO fingerprint, checked) or "confluent" (0 + the 4-byte schema
// id given as schemaId, checked). In PERMISSIVE mode unreadable values are
// counted in the progress metrics numMalformedAvroRecords and
// numUnknownAvroSchemaRecords (another schema's fingerprint or id); leave
// them out with Where(col.IsNotNull()).
func FromAvro(c Column, jsonFormatSchema string, options ...map[string]string) Column {
	opts := map[string]string{}
	for _, o := range options {
		for k, v := range o {
			opts[k] = v
		}
	}
	return c.derive(&expr.FromAvro{X: c.e, Schema: jsonFormatSchema, Options: opts})
}

// ToAvro writes a column as Avro binary, as to_avro(data[,
// jsonFormatSchema]): with the schema given, or the one Spark derives from
// the column's type (records named topLevelRecord, nullable values as
// [type, "null"]).
func ToAvro(c Column, jsonFormatSchema ...string) Column {
	schema := ""
	if len(jsonFormatSchema) > 0 {
		schema = jsonFormatSchema[0]
	}
	return c.derive(&expr.ToAvro{X: c.e, Schema: schema})
}

// Window assigns rows to event-time windows, as window(timeColumn,
// windowDuration[, slideDuration]). Durations are Spark strings
// ("5 minutes") or time.Duration. One duration gives tumbling windows; a
// second gives sliding windows (GroupBy only).
func Window(timeCol Column, size any, slide ...any) Column {
	sz, err := toDuration(size)
	if err != nil {
		return errCol(fmt.Errorf("window: %w", err))
	}
	sl := sz
	if len(slide) > 0 {
		if sl, err = toDuration(slide[0]); err != nil {
			return errCol(fmt.Errorf("window: %w", err))
		}
	}
	var off time.Duration
	if len(slide) > 1 {
		if off, err = toDuration(slide[1]); err != nil {
			return errCol(fmt.Errorf("window: %w", err))
		}
	}
	return timeCol.derive(&expr.TimeWindow{Time: timeCol.e, Size: sz, Slide: sl, Offset: off})
}

func toDuration(v any) (time.Duration, error) {
	switch d := v.(type) {
	case time.Duration:
		return d, nil
	case string:
		return plan.ParseDuration(d)
	}
	return 0, fmt.Errorf("a duration must be a string like \"5 minutes\" or a time.Duration, got %T", v)
}

func aggCol(fn string, c *Column) Column {
	a := &expr.AggFunc{Fn: fn}
	col := Column{agg: a, e: expr.Lit(nil)}
	if c != nil {
		if _, star := c.e.(*expr.Star); !star {
			a.Arg = c.e
		}
		col.err = c.err
	}
	return col
}

// Count counts non-null values of a column; Count(Col("*")) counts rows.
func Count(c Column) Column { return aggCol("count", &c) }

// Sum adds a numeric column.
func Sum(c Column) Column { return aggCol("sum", &c) }

// Min is the smallest value.
func Min(c Column) Column { return aggCol("min", &c) }

// Max is the largest value.
func Max(c Column) Column { return aggCol("max", &c) }

// Avg is the mean of a numeric column.
func Avg(c Column) Column { return aggCol("avg", &c) }

// cols converts names or Columns to Columns.
func cols(items []any) ([]Column, error) {
	out := make([]Column, 0, len(items))
	for _, it := range items {
		switch x := it.(type) {
		case string:
			out = append(out, Col(x))
		case Column:
			if x.err != nil {
				return nil, x.err
			}
			out = append(out, x)
		default:
			return nil, fmt.Errorf("expected a column name or a Column, got %T", it)
		}
	}
	return out, nil
}

// ColumnOf wraps a scalar expression built elsewhere (the function
// registry) as a Column.
func ColumnOf(e expr.Expr) Column { return newCol(e) }

// ScalarExpr returns the column's scalar expression, or the error the
// column carries; an aggregate column is not a scalar expression.
func (c Column) ScalarExpr() (expr.Expr, error) {
	if c.err != nil {
		return nil, c.err
	}
	if c.agg != nil {
		return nil, fmt.Errorf("aggregate %s cannot be an argument of a scalar function", c.agg.Name())
	}
	return c.e, nil
}
