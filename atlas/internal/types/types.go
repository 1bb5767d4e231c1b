// Package types maps Spark SQL type names to Apache Arrow types and back,
// and parses Spark DDL schema strings such as
// "user_id string, event string, ts timestamp".
package types

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Timestamp is Spark's TimestampType as Arrow: microseconds since the epoch,
// UTC. Iceberg maps it to timestamptz.
var Timestamp = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// TimestampNTZ is Spark's TimestampNTZType as Arrow: the microseconds of a
// wall-clock time as if in UTC, without a zone.
var TimestampNTZ = &arrow.TimestampType{Unit: arrow.Microsecond}

// DayTimeInterval is Spark's DayTimeIntervalType (INTERVAL DAY TO SECOND)
// as Arrow: a duration in microseconds. INTERVAL literals, timestamp minus
// timestamp and interval arithmetic produce it.
var DayTimeInterval = &arrow.DurationType{Unit: arrow.Microsecond}

// FromName returns the Arrow type for a Spark SQL type name (case-insensitive):
// string, int/integer, bigint/long, smallint/short, tinyint/byte, double,
// float/real, boolean, timestamp, timestamp_ntz, date, binary, decimal(p,s), array<type>,
// struct<name: type, ...> (field names keep their case) and interval day to
// second.
func FromName(name string) (arrow.DataType, error) {
	trimmed := strings.TrimSpace(name)
	low := strings.ToLower(trimmed)
	if strings.HasPrefix(low, "struct<") && strings.HasSuffix(low, ">") {
		fields, err := parseFields(trimmed[len("struct<"):len(trimmed)-1], true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", trimmed, err)
		}
		return arrow.StructOf(fields...), nil
	}
	if d, ok, err := parseDecimalName(low); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return d, nil
	}
	if strings.HasPrefix(low, "array<") && strings.HasSuffix(low, ">") {
		elem, err := FromName(trimmed[len("array<") : len(trimmed)-1])
		if err != nil {
			return nil, err
		}
		return arrow.ListOf(elem), nil
	}
	if strings.HasPrefix(low, "map<") && strings.HasSuffix(low, ">") {
		return mapFromName(trimmed[len("map<") : len(trimmed)-1])
	}
	switch low {
	case "interval day to second":
		return DayTimeInterval, nil
	case "string", "varchar", "text":
		return arrow.BinaryTypes.String, nil
	case "int", "integer":
		return arrow.PrimitiveTypes.Int32, nil
	case "bigint", "long":
		return arrow.PrimitiveTypes.Int64, nil
	case "smallint", "short":
		return arrow.PrimitiveTypes.Int16, nil
	case "tinyint", "byte":
		return arrow.PrimitiveTypes.Int8, nil
	case "double":
		return arrow.PrimitiveTypes.Float64, nil
	case "float", "real":
		return arrow.PrimitiveTypes.Float32, nil
	case "boolean", "bool":
		return arrow.FixedWidthTypes.Boolean, nil
	case "timestamp", "timestamp_ltz":
		return Timestamp, nil
	case "timestamp_ntz":
		return TimestampNTZ, nil
	case "date":
		return arrow.FixedWidthTypes.Date32, nil
	case "binary":
		return arrow.BinaryTypes.Binary, nil
	}
	return nil, fmt.Errorf("unknown type %q: use one of string, int, bigint, smallint, tinyint, double, float, boolean, timestamp, timestamp_ntz, date, binary, decimal(p,s), array<type>, map<key,value>", name)
}

// mapFromName parses the "key, value" inside map<...>.
func mapFromName(inner string) (arrow.DataType, error) {
	depth := 0
	for i, r := range inner {
		switch r {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth > 0 {
				continue
			}
			k, err := FromName(inner[:i])
			if err != nil {
				return nil, err
			}
			v, err := FromName(inner[i+1:])
			if err != nil {
				return nil, err
			}
			return arrow.MapOf(k, v), nil
		}
	}
	return nil, fmt.Errorf("map<%s>: write map<key type, value type>", inner)

}

// Name returns the Spark SQL name of an Arrow type as printSchema shows it,
// Spark's DataType.typeName (string, integer, long, double, timestamp,
// decimal(10,2), struct, array, map, ...).
func Name(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return "string"
	case arrow.INT32:
		return "integer"
	case arrow.INT64:
		return "long"
	case arrow.INT16:
		return "short"
	case arrow.INT8:
		return "byte"
	case arrow.FLOAT64:
		return "double"
	case arrow.FLOAT32:
		return "float"
	case arrow.BOOL:
		return "boolean"
	case arrow.TIMESTAMP:
		if t.(*arrow.TimestampType).TimeZone == "" {
			return "timestamp_ntz"
		}
		return "timestamp"
	case arrow.DATE32, arrow.DATE64:
		return "date"
	case arrow.BINARY, arrow.LARGE_BINARY:
		return "binary"
	case arrow.STRUCT:
		return "struct"
	case arrow.NULL:
		return "void"
	case arrow.DURATION:
		return "interval day to second"
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return "interval"
	case arrow.INTERVAL_MONTHS:
		return "interval year to month"
	case arrow.LIST, arrow.LARGE_LIST:
		return "array"
	case arrow.MAP:
		return "map"
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		d := t.(arrow.DecimalType)
		return fmt.Sprintf("decimal(%d,%d)", d.GetPrecision(), d.GetScale())
	}
	return t.String()
}

// SQLName returns the DDL spelling of a type (string, int, bigint,
// struct<a:int,b:string>, ...), Spark's DataType.simpleString (which is
// also what DataFrame.dtypes shows), the inverse of FromName.
func SQLName(t arrow.DataType) string {
	switch t.ID() {
	case arrow.INT32:
		return "int"
	case arrow.INT64:
		return "bigint"
	case arrow.INT16:
		return "smallint"
	case arrow.INT8:
		return "tinyint"
	case arrow.STRUCT:
		st := t.(*arrow.StructType)
		parts := make([]string, len(st.Fields()))
		for i, f := range st.Fields() {
			parts[i] = f.Name + ":" + SQLName(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	case arrow.LIST, arrow.LARGE_LIST:
		return "array<" + SQLName(t.(arrow.ListLikeType).Elem()) + ">"
	case arrow.MAP:
		m := t.(*arrow.MapType)
		return "map<" + SQLName(m.KeyType()) + "," + SQLName(m.ItemType()) + ">"
	}
	return Name(t)
}

// SQL returns Spark's DataType.sql spelling of a type, the one its column
// names show: STRING, INT, BIGINT, DECIMAL(10,2), ARRAY<INT>,
// MAP<STRING, INT>, STRUCT<a: INT, b: STRING> (CAST(x AS STRING)).
func SQL(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRUCT:
		st := t.(*arrow.StructType)
		parts := make([]string, len(st.Fields()))
		for i, f := range st.Fields() {
			parts[i] = f.Name + ": " + SQL(f.Type)
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case arrow.LIST, arrow.LARGE_LIST:
		return "ARRAY<" + SQL(t.(arrow.ListLikeType).Elem()) + ">"
	case arrow.MAP:
		m := t.(*arrow.MapType)
		return "MAP<" + SQL(m.KeyType()) + ", " + SQL(m.ItemType()) + ">"
	}
	return strings.ToUpper(SQLName(t))
}

// ParseDDL parses a Spark DDL schema string, "name type, name type, ...",
// into an Arrow schema whose fields are all nullable (as from_json yields).
// A column may be followed by NOT NULL. Types nest: struct<a: int, b:
// string>, array<struct<...>>, decimal(10,2); names may be backquoted. The
// whole schema may also be one struct type: STRUCT<a: INT, b: STRING>.
func ParseDDL(ddl string) (*arrow.Schema, error) {
	// Spark's DataType.fromDDL also takes a whole struct type,
	// STRUCT<a: INT, b: ARRAY<STRING>>, as the schema of its fields.
	if t, err := FromName(ddl); err == nil {
		if st, ok := t.(*arrow.StructType); ok {
			return arrow.NewSchema(st.Fields(), nil), nil
		}
	}
	fields, err := parseFields(ddl, false)
	if err != nil {
		return nil, fmt.Errorf("schema %q: %w", ddl, err)
	}
	return arrow.NewSchema(fields, nil), nil
}

// parseFields parses "name type, ..." (inStruct: "name: type" too, as
// inside struct<...>).
func parseFields(ddl string, inStruct bool) ([]arrow.Field, error) {
	var fields []arrow.Field
	seen := map[string]bool{}
	for i, part := range splitTop(ddl) {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("column %d is empty", i+1)
		}
		name, rest, ok := cutName(part)
		if inStruct {
			rest = strings.TrimPrefix(strings.TrimSpace(rest), ":")
		}
		rest = strings.TrimSpace(rest)
		if !ok || name == "" || rest == "" {
			return nil, fmt.Errorf("column %d %q needs a name and a type, such as \"ts timestamp\"", i+1, part)
		}
		nullable := true
		if up := strings.ToUpper(rest); strings.HasSuffix(up, " NOT NULL") {
			nullable = false
			rest = strings.TrimSpace(rest[:len(rest)-len(" NOT NULL")])
		}
		t, err := FromName(rest)
		if err != nil {
			if w := strings.Fields(rest); len(w) > 1 {
				if _, e2 := FromName(w[0]); e2 == nil {
					return nil, fmt.Errorf("column %q: unexpected %q after the type", name, strings.Join(w[1:], " "))
				}
			}
			return nil, fmt.Errorf("column %q: %w", name, err)
		}
		if seen[strings.ToLower(name)] {
			return nil, fmt.Errorf("column %q appears twice", name)
		}
		seen[strings.ToLower(name)] = true
		fields = append(fields, arrow.Field{Name: name, Type: t, Nullable: nullable})
	}
	return fields, nil
}

// cutName splits a field's leading name (backquoted, with “ for a
// backquote, or up to a blank or ':') from the rest.
func cutName(part string) (name, rest string, ok bool) {
	if strings.HasPrefix(part, "`") {
		var b strings.Builder
		for i := 1; i < len(part); i++ {
			if part[i] == '`' {
				if i+1 < len(part) && part[i+1] == '`' {
					b.WriteByte('`')
					i++
					continue
				}
				return b.String(), part[i+1:], true
			}
			b.WriteByte(part[i])
		}
		return "", "", false
	}
	i := strings.IndexAny(part, " \t\n:")
	if i < 0 {
		return part, "", true
	}
	return part[:i], part[i:], true
}

// splitTop splits s at the commas outside <...>, (...) and backquotes.
func splitTop(s string) []string {
	var parts []string
	depth, start, quoted := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '`':
			quoted = !quoted
		case quoted:
		case c == '<' || c == '(':
			depth++
		case c == '>' || c == ')':
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// TreeString renders a schema the way Spark's printSchema does:
//
//	root
//	 |-- user_id: string (nullable = true)
func TreeString(s *arrow.Schema) string {
	var b strings.Builder
	b.WriteString("root\n")
	writeFields(&b, s.Fields(), " |")
	return b.String()
}

// writeFields writes fields as Spark's StructField.buildFormattedString:
// the field's typeName and nullability, then, for nested types, the
// element, key/value or fields one level deeper (DataType.buildFormattedString).
func writeFields(b *strings.Builder, fields []arrow.Field, prefix string) {
	for _, f := range fields {
		fmt.Fprintf(b, "%s-- %s: %s (nullable = %t)\n", prefix, f.Name, Name(f.Type), f.Nullable)
		writeNested(b, f.Type, prefix+"    |")
	}
}

func writeNested(b *strings.Builder, t arrow.DataType, prefix string) {
	switch t := t.(type) {
	case *arrow.StructType:
		writeFields(b, t.Fields(), prefix)
	case *arrow.MapType:
		// Spark: |    |-- key: string / |    |-- value: long (valueContainsNull = true)
		fmt.Fprintf(b, "%s-- key: %s\n", prefix, Name(t.KeyType()))
		writeNested(b, t.KeyType(), prefix+"    |")
		fmt.Fprintf(b, "%s-- value: %s (valueContainsNull = %t)\n", prefix, Name(t.ItemType()), t.ItemField().Nullable)
		writeNested(b, t.ItemType(), prefix+"    |")
	case arrow.ListLikeType:
		// Spark: |    |-- element: string (containsNull = true)
		fmt.Fprintf(b, "%s-- element: %s (containsNull = %t)\n", prefix, Name(t.Elem()), t.ElemField().Nullable)
		writeNested(b, t.Elem(), prefix+"    |")
	}
}

// IntervalText renders a day-time interval of us microseconds as Spark
// shows a DayTimeIntervalType value: INTERVAL '0 00:10:00' DAY TO SECOND,
// with fractional seconds only when non-zero (INTERVAL '-1 02:03:04.5' DAY
// TO SECOND).
func IntervalText(us int64) string {
	sign := ""
	u := uint64(us)
	if us < 0 {
		sign, u = "-", uint64(-us)
	}
	const perSec, perDay = 1_000_000, 86_400_000_000
	days := u / perDay
	rest := u % perDay
	h, m := rest/3_600_000_000, rest/60_000_000%60
	s, frac := rest/perSec%60, rest%perSec
	sec := fmt.Sprintf("%02d", s)
	if frac != 0 {
		sec += "." + strings.TrimRight(fmt.Sprintf("%06d", frac), "0")
	}
	return "INTERVAL '" + sign + strconv.FormatUint(days, 10) + fmt.Sprintf(" %02d:%02d:", h, m) + sec + "' DAY TO SECOND"
}
