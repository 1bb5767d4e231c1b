package planner

import (
	"fmt"
	"strings"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// Column translates a Spark Connect expression into an engine Column.
func Column(e *pb.Expression) (engine.Column, error) {
	if e == nil {
		return engine.Column{}, fmt.Errorf("an expression is required here, got none")
	}
	switch x := e.GetExprType().(type) {
	case *pb.Expression_UnresolvedAttribute_:
		if x.UnresolvedAttribute.GetIsMetadataColumn() {
			return engine.Column{}, unsupported("metadata columns", "")
		}
		a := x.UnresolvedAttribute
		if a.PlanId != nil && !strings.ContainsAny(a.GetUnparsedIdentifier(), ".`") {
			// df["k"]: the k of that DataFrame, told apart after a join.
			return engine.PlanCol(a.GetUnparsedIdentifier(), a.GetPlanId()), nil
		}
		return engine.Col(a.GetUnparsedIdentifier()), nil
	case *pb.Expression_UnresolvedStar_:
		if t := x.UnresolvedStar.GetUnparsedTarget(); t != "" {
			return engine.Col(t), nil
		}
		return engine.Col("*"), nil
	case *pb.Expression_Literal_:
		return literal(x.Literal)
	case *pb.Expression_Alias_:
		return alias(x.Alias)
	case *pb.Expression_Cast_:
		return cast(x.Cast)
	case *pb.Expression_ExpressionString_:
		return engine.ParseExpr(x.ExpressionString.GetExpression())
	case *pb.Expression_UnresolvedFunction_:
		return function(x.UnresolvedFunction)
	case *pb.Expression_UnresolvedExtractValue_:
		return extractValue(x.UnresolvedExtractValue)
	case *pb.Expression_SortOrder_:
		return engine.Column{}, unsupported("a sort order outside orderBy", "")
	case *pb.Expression_LambdaFunction_:
		return lambdaFunction(x.LambdaFunction)
	case *pb.Expression_UnresolvedNamedLambdaVariable_:
		return lambdaVar(x.UnresolvedNamedLambdaVariable)
	case nil:
		if len(e.ProtoReflect().GetUnknown()) == 0 {
			return engine.Column{}, fmt.Errorf("the expression has no type set")
		}
	}
	return engine.Column{}, unsupported("expression "+OneofName(e.ProtoReflect(), "expr_type"), "see the README's table of supported Spark Connect messages")
}

// columns translates expressions for Select and GroupBy.
func columns(es []*pb.Expression) ([]any, error) {
	out := make([]any, len(es))
	for i, e := range es {
		c, err := Column(e)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func alias(a *pb.Expression_Alias) (engine.Column, error) {
	if len(a.GetName()) != 1 {
		return engine.Column{}, unsupported(fmt.Sprintf("an alias of %d names", len(a.GetName())), "alias one column to one name")
	}
	c, err := Column(a.GetExpr())
	if err != nil {
		return engine.Column{}, err
	}
	return c.Alias(a.GetName()[0]), nil
}

func cast(c *pb.Expression_Cast) (engine.Column, error) {
	in, err := Column(c.GetExpr())
	if err != nil {
		return engine.Column{}, err
	}
	name := c.GetTypeStr()
	if t := c.GetType(); t != nil {
		if name, err = TypeName(t); err != nil {
			return engine.Column{}, fmt.Errorf("cast: %w", err)
		}
	}
	if name == "" {
		return engine.Column{}, fmt.Errorf("cast: no target type")
	}
	switch c.GetEvalMode() {
	case pb.Expression_Cast_EVAL_MODE_LEGACY:
		return in.CastMode(name, expr.EvalLegacy), nil
	case pb.Expression_Cast_EVAL_MODE_ANSI:
		return in.CastMode(name, expr.EvalANSI), nil
	case pb.Expression_Cast_EVAL_MODE_TRY:
		return in.CastMode(name, expr.EvalTry), nil
	}
	return in.Cast(name), nil
}

// sortOrder is a key of orderBy: Spark's default null placement only
// (NULLS FIRST ascending, NULLS LAST descending), as the engine sorts.
func sortOrder(o *pb.Expression_SortOrder) (engine.Column, error) {
	c, err := Column(o.GetChild())
	if err != nil {
		return engine.Column{}, err
	}
	desc := o.GetDirection() == pb.Expression_SortOrder_SORT_DIRECTION_DESCENDING
	nulls := o.GetNullOrdering()
	if desc {
		if nulls == pb.Expression_SortOrder_SORT_NULLS_FIRST {
			return engine.Column{}, unsupported("desc_nulls_first", "Atlas sorts nulls last in descending order")
		}
		return c.Desc(), nil
	}
	if nulls == pb.Expression_SortOrder_SORT_NULLS_LAST {
		return engine.Column{}, unsupported("asc_nulls_last", "Atlas sorts nulls first in ascending order")
	}
	return c.Asc(), nil
}

// extractValue is col.getField(name) (and col[name] on a struct): the
// struct field, named as Spark names an unaliased GetStructField,
// parent.field (window.start), where col("window.start") is named start.
func extractValue(x *pb.Expression_UnresolvedExtractValue) (engine.Column, error) {
	child, err := Column(x.GetChild())
	if err != nil {
		return engine.Column{}, err
	}
	name, ok := x.GetExtraction().GetLiteral().GetLiteralType().(*pb.Expression_Literal_String_)
	if !ok {
		return engine.Column{}, unsupported("extracting a value by a non-string key (an array index or map key)", "use element_at(col, index) for arrays")
	}
	// A bad child (not a column) keeps its error in the Column, reported
	// when the DataFrame is analyzed.
	return child.GetField(name.String_).Alias(child.String() + "." + name.String_), nil
}
