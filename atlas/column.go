package atlas

import (
	"fmt"
	"strings"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// Column is an unresolved expression: the server resolves its names
// against the DataFrame it is used in. Column functions build the
// spark.connect.Expression PySpark's Connect client would send.
type Column struct {
	e   *pb.Expression
	err error // a build error (a bad literal), reported by the DataFrame using it
}

// String shows the expression, for debugging, as PySpark's Spark Connect
// client prints a Column: Column<'>(count, 5)'> for Col("count").Gt(5).
func (c Column) String() string {
	if c.err != nil {
		return "<invalid column: " + c.err.Error() + ">"
	}
	var b strings.Builder
	b.WriteString("Column<'")
	exprString(&b, c.e)
	b.WriteString("'>")
	return b.String()
}

// Expression returns the Spark Connect expression message: a
// protobuf-go-lite message, whose MarshalVT is its wire encoding.
func (c Column) Expression() (*pb.Expression, error) { return c.e, c.err }

// Col refers to a column by name, as col(name): "a", "s.field", "`odd name`";
// "*" is every column and "s.*" every field of struct s.
func Col(name string) Column {
	if name == "*" {
		return Column{e: &pb.Expression{ExprType: &pb.Expression_UnresolvedStar_{UnresolvedStar: &pb.Expression_UnresolvedStar{}}}}
	}
	if strings.HasSuffix(name, ".*") {
		return Column{e: &pb.Expression{ExprType: &pb.Expression_UnresolvedStar_{UnresolvedStar: &pb.Expression_UnresolvedStar{UnparsedTarget: ptr(name)}}}}
	}
	return Column{e: &pb.Expression{ExprType: &pb.Expression_UnresolvedAttribute_{
		UnresolvedAttribute: &pb.Expression_UnresolvedAttribute{UnparsedIdentifier: name},
	}}}
}

// Expr parses a SQL expression on the server, as expr(str):
// Expr("CAST(value AS STRING) AS json").
func Expr(sql string) Column {
	return Column{e: &pb.Expression{ExprType: &pb.Expression_ExpressionString_{
		ExpressionString: &pb.Expression_ExpressionString{Expression: sql},
	}}}
}

// Lit is a literal value, as lit(v): nil, bool, integers, floats, string,
// []byte, time.Time, or a Column (returned as is).
func Lit(v any) Column {
	if c, ok := v.(Column); ok {
		return c
	}
	l, err := literal(v)
	if err != nil {
		return Column{err: fmt.Errorf("lit: %w", err)}
	}
	return Column{e: &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: l}}}
}

// fn calls a Spark function by name, as PySpark's _invoke_function.
func fn(name string, args ...Column) Column {
	f := &pb.Expression_UnresolvedFunction{FunctionName: name}
	for _, a := range args {
		if a.err != nil {
			return Column{err: a.err}
		}
		f.Arguments = append(f.Arguments, a.e)
	}
	return Column{e: &pb.Expression{ExprType: &pb.Expression_UnresolvedFunction_{UnresolvedFunction: f}}}
}

// operand turns the right side of an operator into a Column: Columns stay,
// anything else is a literal.
func operand(v any) Column {
	if c, ok := v.(Column); ok {
		return c
	}
	return Lit(v)
}

func (c Column) bin(op string, other any) Column { return fn(op, c, operand(other)) }

// Alias names the column, as alias(name).
func (c Column) Alias(name string) Column {
	if c.err != nil {
		return c
	}
	return Column{e: &pb.Expression{ExprType: &pb.Expression_Alias_{Alias: &pb.Expression_Alias{Expr: c.e, Name: []string{name}}}}}
}

// As is Alias.
func (c Column) As(name string) Column { return c.Alias(name) }

// Cast converts to a type given by its SQL name ("string", "int",
// "timestamp", "decimal(10,2)"), as cast(type). Under
// spark.sql.ansi.enabled (the default, as in Spark 4) a malformed string
// or a number out of the type's range fails the query with
// CAST_INVALID_INPUT or CAST_OVERFLOW; TryCast gives NULL instead.
func (c Column) Cast(typeName string) Column {
	return c.cast(typeName, pb.Expression_Cast_EVAL_MODE_UNSPECIFIED)
}

// TryCast is Cast that gives NULL where a value does not convert, as
// PySpark's Column.try_cast and SQL's try_cast.
func (c Column) TryCast(typeName string) Column {
	return c.cast(typeName, pb.Expression_Cast_EVAL_MODE_TRY)
}

func (c Column) cast(typeName string, mode pb.Expression_Cast_EvalMode) Column {
	if c.err != nil {
		return c
	}
	return Column{e: &pb.Expression{ExprType: &pb.Expression_Cast_{Cast: &pb.Expression_Cast{
		Expr: c.e, CastToType: &pb.Expression_Cast_TypeStr{TypeStr: typeName}, EvalMode: mode,
	}}}}
}

// GetField extracts a struct field, as getField(name).
func (c Column) GetField(name string) Column {
	if c.err != nil {
		return c
	}
	key := Lit(name)
	return Column{e: &pb.Expression{ExprType: &pb.Expression_UnresolvedExtractValue_{
		UnresolvedExtractValue: &pb.Expression_UnresolvedExtractValue{Child: c.e, Extraction: key.e},
	}}}
}

// EqualTo is c = other (Spark's "==").
func (c Column) EqualTo(other any) Column { return c.bin("==", other) }

// Eq is EqualTo.
func (c Column) Eq(other any) Column { return c.bin("==", other) }

// NotEqual is c != other, sent as not(c == other) like PySpark.
func (c Column) NotEqual(other any) Column { return Not(c.bin("==", other)) }

// Gt is c > other.
func (c Column) Gt(other any) Column { return c.bin(">", other) }

// Geq is c >= other.
func (c Column) Geq(other any) Column { return c.bin(">=", other) }

// Lt is c < other.
func (c Column) Lt(other any) Column { return c.bin("<", other) }

// Leq is c <= other.
func (c Column) Leq(other any) Column { return c.bin("<=", other) }

// And is c AND other.
func (c Column) And(other Column) Column { return c.bin("and", other) }

// Or is c OR other.
func (c Column) Or(other Column) Column { return c.bin("or", other) }

// Not negates a boolean column.
func Not(c Column) Column { return fn("not", c) }

// Plus is c + other.
func (c Column) Plus(other any) Column { return c.bin("+", other) }

// Minus is c - other.
func (c Column) Minus(other any) Column { return c.bin("-", other) }

// Multiply is c * other.
func (c Column) Multiply(other any) Column { return c.bin("*", other) }

// Divide is c / other.
func (c Column) Divide(other any) Column { return c.bin("/", other) }

// Mod is c % other.
func (c Column) Mod(other any) Column { return c.bin("%", other) }

// IsNull is true where c is null.
func (c Column) IsNull() Column { return fn("isNull", c) }

// IsNotNull is true where c is not null.
func (c Column) IsNotNull() Column { return fn("isNotNull", c) }

// IsIn is true where c equals one of values, as isin(...).
func (c Column) IsIn(values ...any) Column {
	args := []Column{c}
	for _, v := range values {
		args = append(args, Lit(v))
	}
	return fn("in", args...)
}

// Asc sorts ascending, nulls first (asc()).
func (c Column) Asc() Column { return c.sortOrder(true) }

// Desc sorts descending, nulls last (desc()).
func (c Column) Desc() Column { return c.sortOrder(false) }

func (c Column) sortOrder(asc bool) Column {
	if c.err != nil {
		return c
	}
	so := &pb.Expression_SortOrder{Child: c.e,
		Direction:    pb.Expression_SortOrder_SORT_DIRECTION_ASCENDING,
		NullOrdering: pb.Expression_SortOrder_SORT_NULLS_FIRST}
	if !asc {
		so.Direction = pb.Expression_SortOrder_SORT_DIRECTION_DESCENDING
		so.NullOrdering = pb.Expression_SortOrder_SORT_NULLS_LAST
	}
	return Column{e: &pb.Expression{ExprType: &pb.Expression_SortOrder_{SortOrder: so}}}
}

// FromJSON parses a JSON string column into a struct with the DDL schema
// ("user_id string, event string, ts timestamp"), as from_json(col, schema).
func FromJSON(c Column, schema string) Column { return fn("from_json", c, Lit(schema)) }

// Window assigns event-time windows, as window(timeColumn, windowDuration
// [, slideDuration]): sizes are Spark interval strings ("5 minutes") or
// time.Duration. The result is a struct column with start and end.
func Window(timeCol Column, size any, slide ...any) Column {
	w, err := intervalString(size)
	if err != nil {
		return Column{err: fmt.Errorf("window duration: %w", err)}
	}
	args := []Column{timeCol, Lit(w)}
	if len(slide) > 0 {
		s, err := intervalString(slide[0])
		if err != nil {
			return Column{err: fmt.Errorf("window slide: %w", err)}
		}
		args = append(args, Lit(s))
	}
	return fn("window", args...)
}

// Count counts the non-null values of c (Count(Lit(1)) counts rows).
func Count(c Column) Column { return fn("count", c) }

// CountDistinct counts the distinct non-null values of c.
func CountDistinct(c Column) Column {
	col := fn("count", c)
	if col.err == nil {
		col.e.GetUnresolvedFunction().IsDistinct = true
	}
	return col
}

// Sum adds c's values.
func Sum(c Column) Column { return fn("sum", c) }

// Min is c's smallest value.
func Min(c Column) Column { return fn("min", c) }

// Max is c's largest value.
func Max(c Column) Column { return fn("max", c) }

// Avg is c's mean.
func Avg(c Column) Column { return fn("avg", c) }

// toColumn turns a Select/GroupBy/OrderBy argument into a Column: a string
// is a column name, a Column stays.
func toColumn(v any) (Column, error) {
	switch x := v.(type) {
	case string:
		return Col(x), nil
	case Column:
		return x, x.err
	}
	return Column{}, fmt.Errorf("want a column name (string) or a Column, got %T", v)
}
