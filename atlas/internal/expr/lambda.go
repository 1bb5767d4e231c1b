package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// Lambdas, as Spark's LambdaFunction and NamedLambdaVariable: a
// higher-order function (transform, filter, aggregate, ...) binds its
// lambda's body against the input schema extended with one field per
// variable, and evaluates it once over all the elements of a batch: the
// variables are columns holding the flattened elements (and their
// indices, accumulators, ...), the input columns the body reads are
// repeated once per element. The function then rebuilds the list offsets.

// LambdaFunction is a lambda: Body over the variables Params. It is only
// an argument of a higher-order function, which binds it; alone it does
// not bind.
type LambdaFunction struct {
	Params []string
	Body   Expr
}

// String is Spark's name: lambdafunction(body, namedlambdavariable(), ...).
func (e *LambdaFunction) String() string {
	return "lambdafunction(" + e.Body.String() + strings.Repeat(", namedlambdavariable()", len(e.Params)) + ")"
}

// Bind refuses a lambda outside a higher-order function.
func (e *LambdaFunction) Bind(*arrow.Schema) (Bound, error) {
	return nil, sparkerr.New("INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION", "A lambda function should only be used in a higher order function. However, its class is not a higher order function: %s.", e)
}

// LambdaVar is a reference to a variable of an enclosing lambda (Spark's
// UnresolvedNamedLambdaVariable); names match case-insensitively.
type LambdaVar struct{ Name string }

// String is Spark's name for it.
func (e *LambdaVar) String() string { return "namedlambdavariable()" }

// metaLambdaVar is the field metadata key naming the lambda variable a
// field of a lambda's binding schema holds.
const metaLambdaVar = "atlas.lambda.var"

// Bind resolves the variable to its field: the innermost lambda's, as
// the higher-order functions append their variables after the fields of
// the schema they were bound against.
func (e *LambdaVar) Bind(s *arrow.Schema) (Bound, error) {
	for i := s.NumFields() - 1; i >= 0; i-- {
		f := s.Field(i)
		if v, ok := f.Metadata.GetValue(metaLambdaVar); ok && strings.EqualFold(v, e.Name) {
			return &colBound{index: i, field: f}, nil
		}
	}
	return nil, fmt.Errorf("lambda variable %s is used outside the lambda that defines it", QuoteID(e.Name))
}

// lambdaVar is one variable a higher-order function passes its lambda.
type lambdaVar struct {
	typ      arrow.DataType
	nullable bool
}

// boundLambda is a lambda bound by a higher-order function.
type boundLambda struct {
	body Bound
	// schema is the body's input: the variables, after the outer columns
	// when the body reads any (outer).
	schema *arrow.Schema
	outer  bool
	nOuter int
	// params is how many variables the lambda takes.
	params int
}

// bindLambda binds fn with variables of the given types. A lambda with
// fewer parameters than the function passes takes the first ones (the
// index of transform and filter is optional); more is Spark's
// INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH.
func bindLambda(hof string, fn *LambdaFunction, s *arrow.Schema, vars []lambdaVar, minParams int) (*boundLambda, error) {
	if len(fn.Params) > len(vars) || len(fn.Params) < minParams {
		want := fmt.Sprint(len(vars))
		if minParams < len(vars) {
			want = fmt.Sprintf("%d or %d", minParams, len(vars))
		}
		return nil, sparkerr.New("INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH", "Invalid lambda function call. A higher order function %s expects %s arguments, but got %d.", hof, want, len(fn.Params))
	}
	fields := make([]arrow.Field, len(fn.Params))
	for i, p := range fn.Params {
		fields[i] = arrow.Field{Name: "namedlambdavariable()", Type: vars[i].typ, Nullable: vars[i].nullable,
			Metadata: arrow.NewMetadata([]string{metaLambdaVar}, []string{p})}
	}
	inner := arrow.NewSchema(fields, nil)
	if body, err := fn.Body.Bind(inner); err == nil {
		return &boundLambda{body: body, schema: inner, params: len(fields)}, nil
	}
	full := arrow.NewSchema(append(append([]arrow.Field{}, s.Fields()...), fields...), nil)
	body, err := fn.Body.Bind(full)
	if err != nil {
		return nil, err
	}
	return &boundLambda{body: body, schema: full, outer: true, nOuter: s.NumFields(), params: len(fields)}, nil
}

// Type is the type of the lambda's result.
func (l *boundLambda) Type() arrow.DataType { return l.body.Type() }

// eval evaluates the body over n elements: vars are the variables'
// columns (n values each, as many as the lambda has parameters, extra
// ones ignored), parent[j] the input row of element j (used only when
// the body reads input columns).
func (l *boundLambda) eval(c *Ctx, rec arrow.RecordBatch, parent []int32, vars []arrow.Array) (arrow.Array, error) {
	n := int64(len(parent))
	cols := make([]arrow.Array, 0, l.schema.NumFields())
	var owned []arrow.Array
	defer func() {
		for _, a := range owned {
			a.Release()
		}
	}()
	if l.outer {
		for i := 0; i < l.nOuter; i++ {
			a, err := takeInts(c, rec.Column(i), parent)
			if err != nil {
				return nil, err
			}
			owned = append(owned, a)
			cols = append(cols, a)
		}
	}
	cols = append(cols, vars[:l.schema.NumFields()-len(cols)]...)
	batch := array.NewRecordBatch(l.schema, cols, n)
	defer batch.Release()
	return l.body.Eval(c, batch)
}

// elements is the flattened view of a list (or map) column: the elements
// of every non-NULL row, in order.
type elements struct {
	// offsets are the rows' offsets into the flattened elements.
	offsets []int32
	// parent is the row of each element, index its position in its row.
	parent, index []int32
	// src is the position of each element in the list's values.
	src []int32
	// valid tells the non-NULL rows.
	valid []bool
}

// flatten lists the elements of l's non-NULL rows.
func flatten(l offsetsOf) *elements {
	n := l.Len()
	e := &elements{offsets: make([]int32, n+1), valid: make([]bool, n)}
	for i := 0; i < n; i++ {
		e.offsets[i+1] = e.offsets[i]
		if l.IsNull(i) {
			continue
		}
		e.valid[i] = true
		s, end := l.ValueOffsets(i)
		for j := s; j < end; j++ {
			e.parent = append(e.parent, int32(i))
			e.index = append(e.index, int32(j-s))
			e.src = append(e.src, int32(j))
		}
		e.offsets[i+1] += int32(end - s)
	}
	return e
}

// take returns values at the elements' positions.
func (e *elements) take(c *Ctx, values arrow.Array) (arrow.Array, error) {
	return takeInts(c, values, e.src)
}

// indices is the elements' positions within their rows, as an INT column.
func (e *elements) indices(c *Ctx) arrow.Array {
	b := array.NewInt32Builder(c.Mem)
	defer b.Release()
	b.AppendValues(e.index, nil)
	return b.NewArray()
}

// AsLambda returns e as a lambda function, looking through names.
func AsLambda(e Expr) (*LambdaFunction, bool) {
	for {
		switch x := e.(type) {
		case *LambdaFunction:
			return x, true
		case *Named:
			e = x.X
		default:
			return nil, false
		}
	}
}

// takeOrNull is takeInts where a negative index gives NULL.
func takeOrNull(c *Ctx, values arrow.Array, idx []int32) (arrow.Array, error) {
	ib := array.NewInt32Builder(c.Mem)
	defer ib.Release()
	for _, k := range idx {
		if k < 0 {
			ib.AppendNull()
		} else {
			ib.Append(k)
		}
	}
	ix := ib.NewArray()
	defer ix.Release()
	return takeArray(c, values, ix)
}

// needsBool refuses a lambda whose result is not a boolean.
func needsBool(fn string, l *boundLambda, lam *LambdaFunction) error {
	if id := l.Type().ID(); id != arrow.BOOL && id != arrow.NULL {
		return sparkerr.New("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "Cannot resolve %s: the lambda function %s must return a boolean, not %s.", fn, lam, l.Type())
	}
	return nil
}
