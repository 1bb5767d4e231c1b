package functions_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/functions"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	sqlparser "github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// connectOnly are the names the client sends that are Spark Connect
// encodings rather than Spark functions: PySpark sends when/otherwise
// chains as one "when" call, which the Connect planner translates.
var connectOnly = map[string]bool{"when": true}

// helperCall is one fn("name", args...) call in the client's functions.go.
type helperCall struct {
	helper, name string
	n            int  // arguments passed
	variadic     bool // the last argument spreads a slice: n or more
}

// clientHelperCalls reads atlas/functions.go (the client's helpers) and
// returns every fn("name", ...) call it makes.
func clientHelperCalls(t *testing.T) []helperCall {
	t.Helper()
	path := filepath.Join("..", "..", "functions.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []helperCall
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || !fd.Name.IsExported() {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "fn" || len(call.Args) == 0 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			name, _ := strconv.Unquote(lit.Value)
			hc := helperCall{helper: fd.Name.Name, name: name, n: len(call.Args) - 1}
			if call.Ellipsis.IsValid() {
				hc.variadic = true
				hc.n--
				if app, ok := call.Args[len(call.Args)-1].(*ast.CallExpr); ok && len(app.Args) > 0 {
					if cl, ok := app.Args[0].(*ast.CompositeLit); ok {
						hc.n += len(cl.Elts)
					}
				}
			}
			out = append(out, hc)
			return true
		})
	}
	return out
}

// TestClientHelpersAreRegistered checks that every function the client's
// helpers call is in the registry and accepts the arguments they send.
func TestClientHelpersAreRegistered(t *testing.T) {
	calls := clientHelperCalls(t)
	if len(calls) < 15 {
		t.Fatalf("found only %d fn(...) calls in the client's functions.go", len(calls))
	}
	for _, c := range calls {
		if connectOnly[c.name] {
			continue
		}
		d, ok := functions.Lookup(c.name)
		if !ok {
			t.Errorf("client helper %s calls %s, which the registry does not define", c.helper, c.name)
			continue
		}
		if c.variadic {
			if d.MaxArgs >= 0 {
				t.Errorf("client helper %s passes %s any number of arguments; the registry takes at most %d", c.helper, c.name, d.MaxArgs)
			}
			continue
		}
		if err := d.CheckArity(c.name, c.n); err != nil {
			t.Errorf("client helper %s passes %s %d arguments: %v", c.helper, c.name, c.n, err)
		}
	}
}

// TestRegisteredFunctionsReachable calls every registered name and alias
// from SQL and as a Spark Connect UnresolvedFunction: neither may answer
// UNRESOLVED_ROUTINE (other errors, such as a literal of the wrong type,
// are fine here), while an unknown name must.
func TestRegisteredFunctionsReachable(t *testing.T) {
	names := functions.Names()
	if len(names) < 20 {
		t.Fatalf("only %d names registered", len(names))
	}
	for _, name := range append(names, "no_such_function") {
		d, ok := functions.Lookup(name)
		nargs := 1
		if ok {
			nargs = d.MinArgs
		}
		sqlErr := viaSQL(name, nargs)
		connErr := viaConnect(name, nargs)
		for how, err := range map[string]error{"SQL": sqlErr, "Connect": connErr} {
			unresolved := err != nil && strings.Contains(err.Error(), "UNRESOLVED_ROUTINE")
			if ok && unresolved {
				t.Errorf("%s is registered but %s cannot reach it: %v", name, how, err)
			}
			if !ok && !unresolved {
				t.Errorf("%s: unknown function %s: want UNRESOLVED_ROUTINE, got %v", how, name, err)
			}
		}
	}
}

func viaSQL(name string, nargs int) error {
	c := &sqlparser.Call{Name: name}
	for range nargs {
		c.Args = append(c.Args, &sqlparser.Literal{Kind: sqlparser.StringLiteral, Value: "1"})
	}
	_, err := sql.Expr(c)
	return err
}

func viaConnect(name string, nargs int) error {
	f := &pb.Expression_UnresolvedFunction{FunctionName: name}
	for range nargs {
		f.Arguments = append(f.Arguments, &pb.Expression{ExprType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
			LiteralType: &pb.Expression_Literal_String_{String_: "1"}}}})
	}
	_, err := planner.Column(&pb.Expression{ExprType: &pb.Expression_UnresolvedFunction_{UnresolvedFunction: f}})
	return err
}
