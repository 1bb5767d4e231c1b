package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Explode is Spark's family of generators over an array or a map: one
// output row per element, the other selected columns repeated.
//
//   - explode(array) gives the element as col; explode(map) gives key and
//     value.
//   - posexplode adds the element's 0-based position as pos, first.
//   - inline(array of structs) spreads each struct over one column per
//     field, named after the fields.
//
// Without Outer a row whose array or map is null or empty gives no rows;
// with Outer (explode_outer, posexplode_outer, inline_outer) it gives one
// row of nulls. A generator is planned as a Generate node by the
// projection that selects it (plan.NewGenerate); anywhere else it cannot
// be evaluated, and Bind says so.
type Explode struct {
	X      Expr
	Outer  bool
	Pos    bool
	Inline bool
}

// Name is Spark's name of the generator: explode, posexplode_outer, ...
func (e *Explode) Name() string {
	n := "explode"
	switch {
	case e.Inline:
		n = "inline"
	case e.Pos:
		n = "posexplode"
	}
	if e.Outer {
		n += "_outer"
	}
	return n
}

func (e *Explode) String() string { return e.Name() + "(" + e.X.String() + ")" }

// Bind refuses: a generator is only allowed as a top-level item of a
// projection, as in Spark.
func (e *Explode) Bind(*arrow.Schema) (Bound, error) {
	return nil, fmt.Errorf("[UNSUPPORTED_GENERATOR.OUTSIDE_SELECT] %s: a generator is only allowed as an item of Select (Select(Explode(Col(\"a\")).Alias(\"x\"))), not nested in an expression or outside Select", e)
}

// BindArray resolves the array or map the generator walks.
func (e *Explode) BindArray(s *arrow.Schema) (Bound, error) {
	x, err := e.X.Bind(s)
	if err != nil {
		return nil, err
	}
	switch t := x.Type().(type) {
	case *arrow.MapType:
		if !e.Inline {
			return x, nil
		}
	case *arrow.ListType:
		if _, ok := t.Elem().(*arrow.StructType); ok || !e.Inline {
			return x, nil
		}
	}
	want := "an array or a map"
	if e.Inline {
		want = "an array of structs"
	}
	return nil, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] Cannot resolve %s: the argument must be %s, got %s", e, want, types.Name(x.Type()))
}

// Fields are the generator's output columns over in, the type of the
// array or map BindArray resolved: [pos,] then col for an array, key and
// value for a map, or the struct's fields for inline. Every column but
// pos is nullable, and pos is nullable too with Outer. A non-empty alias
// renames the single column of explode; Spark refuses one alias for a
// generator of several columns.
func (e *Explode) Fields(in arrow.DataType, alias string) ([]arrow.Field, error) {
	var out []arrow.Field
	if e.Pos {
		out = append(out, arrow.Field{Name: "pos", Type: arrow.PrimitiveTypes.Int32, Nullable: e.Outer})
	}
	switch t := in.(type) {
	case *arrow.MapType:
		out = append(out, arrow.Field{Name: "key", Type: t.KeyType(), Nullable: true},
			arrow.Field{Name: "value", Type: t.ItemType(), Nullable: true})
	case *arrow.ListType:
		if st, ok := t.Elem().(*arrow.StructType); ok && e.Inline {
			for _, f := range st.Fields() {
				out = append(out, arrow.Field{Name: f.Name, Type: f.Type, Nullable: true})
			}
		} else {
			out = append(out, arrow.Field{Name: "col", Type: t.Elem(), Nullable: true})
		}
	default:
		return nil, fmt.Errorf("%s: the argument must be an array or a map, got %s", e, types.Name(in))
	}
	if alias != "" {
		if len(out) != 1 {
			return nil, fmt.Errorf("[UDTF_ALIAS_NUMBER_MISMATCH] The number of aliases supplied in the AS clause does not match the number of columns output by the UDTF. Expected %d aliases, but got %s. SQLSTATE: 42802", len(out), alias)
		}
		out[0].Name = alias
	}
	return out, nil
}

// AsGenerator reports whether e is a generator, alone or aliased, and its
// alias ("" when not aliased).
func AsGenerator(e Expr) (*Explode, string, bool) {
	name := ""
	if a, ok := e.(*Alias); ok {
		e, name = a.Expr, a.Name
	}
	g, ok := e.(*Explode)
	return g, name, ok
}
