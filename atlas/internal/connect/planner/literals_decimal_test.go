package planner

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// decimalLit encodes Spark's Expression.Literal.Decimal (field 12 of
// Literal: value 1, precision 2, scale 3) by hand, as PySpark's
// lit(Decimal(...)) sends it.
func decimalLit(value string, prec, scale int) *pb.Expression_Literal {
	var d []byte
	d = protowire.AppendTag(d, 1, protowire.BytesType)
	d = protowire.AppendString(d, value)
	if prec >= 0 {
		d = protowire.AppendTag(d, 2, protowire.VarintType)
		d = protowire.AppendVarint(d, uint64(prec))
		d = protowire.AppendTag(d, 3, protowire.VarintType)
		d = protowire.AppendVarint(d, uint64(scale))
	}
	var b []byte
	b = protowire.AppendTag(b, 12, protowire.BytesType)
	b = protowire.AppendBytes(b, d)
	l := &pb.Expression_Literal{}
	l.ProtoReflect().SetUnknown(b)
	return l
}

// A Spark Connect decimal literal is an exact DECIMAL: its digits give the
// type (1.50 is DECIMAL(3,2)) unless the client sent a precision and
// scale, to which the value is rounded half up.
func TestDecimalLiteralOverConnect(t *testing.T) {
	for _, c := range []struct {
		value       string
		prec, scale int
		want        string
		p, s        int32
	}{
		{"1.50", -1, 0, "1.50", 3, 2},
		{"-0.05", -1, 0, "-0.05", 2, 2},
		{"1.5", 10, 2, "1.50", 10, 2},
		{"1.255", 5, 2, "1.26", 5, 2},
	} {
		v, err := literalValue(decimalLit(c.value, c.prec, c.scale))
		d, ok := v.(expr.Decimal)
		if err != nil || !ok || d.String() != c.want || d.Precision != c.p || d.Scale != c.s {
			t.Errorf("decimal %q (%d,%d): %v (%v), want %s as DECIMAL(%d,%d)", c.value, c.prec, c.scale, v, err, c.want, c.p, c.s)
		}
	}
	for _, c := range []struct {
		value       string
		prec, scale int
		want        string
	}{
		{"abc", -1, 0, "invalid decimal"},
		{"123.4", 3, 1, "NUMERIC_VALUE_OUT_OF_RANGE"},
		{"1", 40, 0, "not a decimal type"},
	} {
		if _, err := literalValue(decimalLit(c.value, c.prec, c.scale)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("decimal %q (%d,%d): %v, want an error with %q", c.value, c.prec, c.scale, err, c.want)
		}
	}
}

// Cast to DecimalType over Connect names the decimal the engine casts to;
// DecimalType() without parameters is DECIMAL(10,0).
func TestCastToDecimalTypeOverConnect(t *testing.T) {
	p, s := int32(5), int32(2)
	for _, c := range []struct {
		t    *pb.DataType
		want string
	}{
		{&pb.DataType{Kind: &pb.DataType_Decimal_{Decimal: &pb.DataType_Decimal{Precision: &p, Scale: &s}}}, "decimal(5,2)"},
		{&pb.DataType{Kind: &pb.DataType_Decimal_{Decimal: &pb.DataType_Decimal{}}}, "decimal(10,0)"},
	} {
		if got, err := TypeName(c.t); err != nil || got != c.want {
			t.Errorf("TypeName: %q (%v), want %q", got, err, c.want)
		}
	}
}
