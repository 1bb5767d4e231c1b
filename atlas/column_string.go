package atlas

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// exprString writes e the way PySpark's Spark Connect client prints a
// Column (python/pyspark/sql/connect/expressions.py, __repr__): names as
// written, functions and operators as name(args), "x AS name", "(x (type))"
// for a cast, "x ASC NULLS FIRST" for a sort order, literals by value.
func exprString(b *strings.Builder, e *pb.Expression) {
	switch x := e.GetExprType().(type) {
	case *pb.Expression_UnresolvedAttribute_:
		b.WriteString(x.UnresolvedAttribute.GetUnparsedIdentifier())
	case *pb.Expression_UnresolvedStar_:
		if t := x.UnresolvedStar.GetUnparsedTarget(); t != "" {
			b.WriteString(t)
		} else {
			b.WriteString("*")
		}
	case *pb.Expression_ExpressionString_:
		b.WriteString(x.ExpressionString.GetExpression())
	case *pb.Expression_Literal_:
		literalString(b, x.Literal)
	case *pb.Expression_UnresolvedFunction_:
		f := x.UnresolvedFunction
		b.WriteString(f.GetFunctionName())
		b.WriteString("(")
		if f.GetIsDistinct() {
			b.WriteString("distinct ")
		}
		for i, a := range f.GetArguments() {
			if i > 0 {
				b.WriteString(", ")
			}
			exprString(b, a)
		}
		b.WriteString(")")
	case *pb.Expression_Alias_:
		exprString(b, x.Alias.GetExpr())
		b.WriteString(" AS ")
		b.WriteString(strings.Join(x.Alias.GetName(), ","))
	case *pb.Expression_Cast_:
		b.WriteString("(")
		exprString(b, x.Cast.GetExpr())
		b.WriteString(" (")
		b.WriteString(x.Cast.GetTypeStr())
		b.WriteString("))")
	case *pb.Expression_SortOrder_:
		exprString(b, x.SortOrder.GetChild())
		if x.SortOrder.GetDirection() == pb.Expression_SortOrder_SORT_DIRECTION_DESCENDING {
			b.WriteString(" DESC")
		} else {
			b.WriteString(" ASC")
		}
		if x.SortOrder.GetNullOrdering() == pb.Expression_SortOrder_SORT_NULLS_LAST {
			b.WriteString(" NULLS LAST")
		} else {
			b.WriteString(" NULLS FIRST")
		}
	case *pb.Expression_UnresolvedExtractValue_:
		b.WriteString("UnresolvedExtractValue(")
		exprString(b, x.UnresolvedExtractValue.GetChild())
		b.WriteString(", ")
		exprString(b, x.UnresolvedExtractValue.GetExtraction())
		b.WriteString(")")
	default:
		b.WriteString("<expression>")
	}
}

// literalString writes a literal's value as Spark SQL would show it.
func literalString(b *strings.Builder, l *pb.Expression_Literal) {
	switch v := l.GetLiteralType().(type) {
	case *pb.Expression_Literal_Null:
		b.WriteString("NULL")
	case *pb.Expression_Literal_Boolean:
		b.WriteString(strconv.FormatBool(v.Boolean))
	case *pb.Expression_Literal_Byte:
		b.WriteString(strconv.Itoa(int(v.Byte)))
	case *pb.Expression_Literal_Short:
		b.WriteString(strconv.Itoa(int(v.Short)))
	case *pb.Expression_Literal_Integer:
		b.WriteString(strconv.Itoa(int(v.Integer)))
	case *pb.Expression_Literal_Long:
		b.WriteString(strconv.FormatInt(v.Long, 10))
	case *pb.Expression_Literal_Float:
		b.WriteString(strconv.FormatFloat(float64(v.Float), 'g', -1, 32))
	case *pb.Expression_Literal_Double:
		b.WriteString(strconv.FormatFloat(v.Double, 'g', -1, 64))
	case *pb.Expression_Literal_String_:
		b.WriteString(v.String_)
	case *pb.Expression_Literal_Binary:
		b.WriteString("X'" + strings.ToUpper(hex.EncodeToString(v.Binary)) + "'")
	case *pb.Expression_Literal_Timestamp:
		b.WriteString(time.UnixMicro(v.Timestamp).UTC().Format("2006-01-02 15:04:05.999999"))
	case *pb.Expression_Literal_DayTimeInterval:
		b.WriteString((time.Duration(v.DayTimeInterval) * time.Microsecond).String())
	default:
		b.WriteString("<literal>")
	}
}
