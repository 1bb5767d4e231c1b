package functions

import (
	"fmt"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

func collectionDefs() []*Def {
	return []*Def{
		{Name: "array", Group: "array", MinArgs: 0, MaxArgs: -1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.MakeArray{Args: a}, nil
		}},
		{Name: "element_at", Group: "collection", MinArgs: 2, MaxArgs: 2, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.ElementAt{X: a[0], Index: a[1]}, nil
		}},
		{Name: "try_element_at", Group: "collection", MinArgs: 2, MaxArgs: 2, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.ElementAt{X: a[0], Index: a[1], Try: true}, nil
		}},
		{Name: "struct", Group: "struct", MinArgs: 1, MaxArgs: -1, Build: makeStruct},
		{Name: "named_struct", Group: "struct", MinArgs: 2, MaxArgs: -1, Build: namedStruct},
		{Name: "size", Aliases: []string{"cardinality"}, Group: "collection", MinArgs: 1, MaxArgs: 1, Build: func(_ string, a []expr.Expr) (expr.Expr, error) {
			return &expr.Size{X: a[0]}, nil
		}},
	}
}

// makeStruct is struct(a, b, ...): a field per argument, named after the
// column it reads, else col1, col2, ... as Spark's CreateStruct.
func makeStruct(name string, a []expr.Expr) (expr.Expr, error) {
	names := make([]string, len(a))
	for i, x := range a {
		names[i] = fmt.Sprintf("col%d", i+1)
		if ref, ok := unnamed(x).(*expr.ColumnRef); ok {
			names[i] = ref.Parts[len(ref.Parts)-1]
		}
	}
	return &expr.MakeStruct{Names: names, Args: a, Text: callText(name, a)}, nil
}

// namedStruct is named_struct(name1, value1, ...): the names are string
// literals.
func namedStruct(name string, a []expr.Expr) (expr.Expr, error) {
	if len(a)%2 != 0 {
		return nil, fmt.Errorf("[WRONG_NUM_ARGS.WITHOUT_SUGGESTION] The `named_struct` requires an even number of parameters but the actual number is %d. SQLSTATE: 42605", len(a))
	}
	var names []string
	var vals []expr.Expr
	for i := 0; i < len(a); i += 2 {
		n, err := stringLit(name, a, i, fmt.Sprintf("argument %d (a field name)", i+1))
		if err != nil {
			return nil, err
		}
		names = append(names, n)
		vals = append(vals, a[i+1])
	}
	return &expr.MakeStruct{Names: names, Args: vals, Text: callText(name, a)}, nil
}

// unnamed strips the names the registry wraps results in.
func unnamed(e expr.Expr) expr.Expr {
	for {
		n, ok := e.(*expr.Named)
		if !ok {
			return e
		}
		e = n.X
	}
}

// callText is Spark's default column name: name(arg1, arg2, ...).
func callText(name string, a []expr.Expr) string {
	parts := make([]string, len(a))
	for i, x := range a {
		parts[i] = x.String()
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}
