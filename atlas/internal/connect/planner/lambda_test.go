package planner

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

func fnExpr(name string, args ...*pb.Expression) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_UnresolvedFunction_{UnresolvedFunction: &pb.Expression_UnresolvedFunction{FunctionName: name, Arguments: args}}}
}

func intLit(v int32) *pb.Expression {
	return &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{LiteralType: &pb.Expression_Literal_Integer{Integer: v}}}}
}

func lambdaVariable(name string) *pb.Expression_UnresolvedNamedLambdaVariable {
	return &pb.Expression_UnresolvedNamedLambdaVariable{NameParts: []string{name}}
}

func lambdaOf(body *pb.Expression, vars ...string) *pb.Expression {
	l := &pb.Expression_LambdaFunction{Function: body}
	for _, v := range vars {
		l.Arguments = append(l.Arguments, lambdaVariable(v))
	}
	return &pb.Expression{ExprType: &pb.Expression_LambdaFunction_{LambdaFunction: l}}
}

// TestLambdaOverConnect plans higher-order functions as PySpark sends
// them (F.transform(col, lambda x: x + 1)): the body reading the variable
// as an UnresolvedNamedLambdaVariable, or as an UnresolvedAttribute, which
// then shadows a column of that name; the result and Spark's column name
// are checked.
func TestLambdaOverConnect(t *testing.T) {
	x := &pb.Expression{ExprType: &pb.Expression_UnresolvedNamedLambdaVariable_{UnresolvedNamedLambdaVariable: lambdaVariable("x_1")}}
	arr := fnExpr("array", intLit(1), intLit(2))
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}, {Name: "y", Type: arrow.PrimitiveTypes.Int32}}, nil)
	b := array.NewInt32Builder(memory.DefaultAllocator)
	b.AppendValues([]int32{100}, nil)
	col := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col, col}, 1)
	defer rec.Release()
	for _, tc := range []struct {
		e          *pb.Expression
		name, want string
	}{
		{fnExpr("transform", arr, lambdaOf(fnExpr("+", x, intLit(1)), "x_1")),
			"transform(array(1, 2), lambdafunction((namedlambdavariable() + 1), namedlambdavariable()))", "[2,3]"},
		{fnExpr("transform", arr, lambdaOf(fnExpr("+", attr("x"), attr("y")), "x")),
			"transform(array(1, 2), lambdafunction((namedlambdavariable() + y), namedlambdavariable()))", "[101,102]"},
		{fnExpr("filter", arr, lambdaOf(fnExpr(">", attr("x"), intLit(1)), "x")),
			"filter(array(1, 2), lambdafunction((namedlambdavariable() > 1), namedlambdavariable()))", "[2]"},
		{fnExpr("aggregate", arr, intLit(0), lambdaOf(fnExpr("+", attr("acc"), attr("x")), "acc", "x")),
			"aggregate(array(1, 2), 0, lambdafunction((namedlambdavariable() + namedlambdavariable()), namedlambdavariable(), namedlambdavariable()), lambdafunction(namedlambdavariable(), namedlambdavariable()))", "3"},
	} {
		c, err := Column(tc.e)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		e, err := c.ScalarExpr()
		if err != nil {
			t.Fatal(err)
		}
		if got := e.String(); got != tc.name {
			t.Errorf("name %s, want %s", got, tc.name)
		}
		bound, err := e.Bind(schema)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		out, err := bound.Eval(expr.NewCtx(context.Background()), rec)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := out.ValueStr(0); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, got, tc.want)
		}
		out.Release()
	}
	if _, err := Column(lambdaOf(intLit(1))); err == nil {
		t.Error("a lambda without variables was planned")
	}
}
