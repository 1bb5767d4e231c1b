package planner

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// lambdaFunction plans a LambdaFunction, the lambda argument of a
// higher-order function (F.transform(col, lambda x: x + 1)). Its body
// reads the variables as UnresolvedNamedLambdaVariable, or, as Spark's
// protocol allows, as UnresolvedAttribute naming a variable; both become
// the lambda's variables.
func lambdaFunction(l *pb.Expression_LambdaFunction) (engine.Column, error) {
	args := l.GetArguments()
	if len(args) < 1 || len(args) > 3 {
		return engine.Column{}, fmt.Errorf("a lambda function takes 1 to 3 variables, got %d", len(args))
	}
	params := make([]string, len(args))
	for i, a := range args {
		if params[i] = lambdaVarName(a); params[i] == "" {
			return engine.Column{}, fmt.Errorf("lambda variable %d has no name", i+1)
		}
	}
	body := proto.Clone(l.GetFunction()).(*pb.Expression)
	walkExpressions(body.ProtoReflect(), func(e *pb.Expression) {
		a := e.GetUnresolvedAttribute()
		if a == nil || a.PlanId != nil {
			return
		}
		for _, p := range params {
			if strings.EqualFold(p, a.GetUnparsedIdentifier()) {
				e.ExprType = &pb.Expression_UnresolvedNamedLambdaVariable_{UnresolvedNamedLambdaVariable: &pb.Expression_UnresolvedNamedLambdaVariable{NameParts: []string{p}}}
				return
			}
		}
	})
	c, err := Column(body)
	if err != nil {
		return engine.Column{}, fmt.Errorf("lambda function: %w", err)
	}
	e, err := c.ScalarExpr()
	if err != nil {
		return engine.Column{}, fmt.Errorf("lambda function: %w", err)
	}
	return engine.ColumnOf(&expr.LambdaFunction{Params: params, Body: e}), nil
}

// lambdaVar plans a reference to a lambda's variable.
func lambdaVar(v *pb.Expression_UnresolvedNamedLambdaVariable) (engine.Column, error) {
	name := lambdaVarName(v)
	if name == "" {
		return engine.Column{}, fmt.Errorf("a lambda variable needs a name")
	}
	return engine.ColumnOf(&expr.LambdaVar{Name: name}), nil
}

func lambdaVarName(v *pb.Expression_UnresolvedNamedLambdaVariable) string {
	return strings.Join(v.GetNameParts(), ".")
}

// walkExpressions calls f on every Expression in m, parents first.
func walkExpressions(m protoreflect.Message, f func(*pb.Expression)) {
	if e, ok := m.Interface().(*pb.Expression); ok {
		f(e)
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					walkExpressions(mv.Message(), f)
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				for i, l := 0, v.List(); i < l.Len(); i++ {
					walkExpressions(l.Get(i).Message(), f)
				}
			}
		case fd.Message() != nil:
			walkExpressions(v.Message(), f)
		}
		return true
	})
}
