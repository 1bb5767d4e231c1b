package parser

import (
	"bytes"
	"testing"
)

// TestBinaryLiteralForms checks X'..' with and without blanks before the
// quote (Spark's typeConstructor, as in its bitmap_count(X '1010')
// example), odd digit counts read as Hex.unhex does, and that names
// starting with x stay names.
func TestBinaryLiteralForms(t *testing.T) {
	for in, want := range map[string][]byte{
		"X'1010'":   {0x10, 0x10},
		"X '1010'":  {0x10, 0x10},
		"x  'FFFF'": {0xFF, 0xFF},
		"X '0'":     {0x00},
		"X'F'":      {0x0F},
	} {
		lit, ok := mustExpr(t, in).(*Literal)
		if !ok || lit.Kind != BinaryLiteral || !bytes.Equal(lit.Value.([]byte), want) {
			t.Errorf("%s parsed to %#v, want the binary literal %X", in, lit, want)
		}
	}
	if _, ok := mustExpr(t, "xs").(*ColumnRef); !ok {
		t.Errorf("xs is not a column reference")
	}
	if _, err := ParseExpr("X 'G1'"); err == nil {
		t.Errorf("X 'G1' parsed; want an invalid binary literal error")
	}
}
