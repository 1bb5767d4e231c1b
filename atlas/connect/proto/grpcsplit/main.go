// Command grpcsplit moves the gRPC service code protoc-gen-go-grpc writes
// next to the messages (sparkpb/base_grpc.pb.go) into a package of its own,
// qualifying the message types it names. The messages package then does
// not import google.golang.org/grpc, so the Atlas Connect client, which
// speaks gRPC over net/http's HTTP/2, links neither grpc-go nor its
// dependencies into every notebook cell. `make proto` runs it.
//
// Usage: grpcsplit <in _grpc.pb.go> <messages import path> <out file>
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: grpcsplit <in _grpc.pb.go> <messages import path> <out file>")
		os.Exit(2)
	}
	if err := split(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "grpcsplit:", err)
		os.Exit(1)
	}
}

func split(in, msgImport, out string) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, in, nil, parser.ParseComments)
	if err != nil {
		return err
	}
	// Names the messages package declares: every top-level name of the
	// other files in the input's directory.
	msgNames := map[string]bool{}
	pkgs, err := parser.ParseDir(fset, filepath.Dir(in), func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_grpc.pb.go") && !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		return err
	}
	for _, p := range pkgs {
		for _, file := range p.Files {
			for name, obj := range file.Scope.Objects {
				if obj.Kind == ast.Typ {
					msgNames[name] = true
				}
			}
		}
	}
	const alias = "pb"
	pkgName := filepath.Base(filepath.Dir(out))
	f.Name.Name = pkgName
	astutil.Apply(f, func(c *astutil.Cursor) bool {
		switch n := c.Node().(type) {
		case *ast.SelectorExpr:
			// Rewrite the left side only; never a field or method name.
			if id, ok := n.X.(*ast.Ident); ok && msgNames[id.Name] {
				n.X = &ast.SelectorExpr{X: ast.NewIdent(alias), Sel: ast.NewIdent(id.Name)}
			}
			return false
		case *ast.Ident:
			if msgNames[n.Name] && isTypeUse(c) {
				c.Replace(&ast.SelectorExpr{X: ast.NewIdent(alias), Sel: ast.NewIdent(n.Name)})
			}
		}
		return true
	}, nil)
	astutil.AddNamedImport(fset, f, alias, msgImport)
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, f); err != nil {
		return err
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		return err
	}
	return os.Remove(in)
}

// isTypeUse reports whether the identifier under c refers to something
// (rather than declaring a name or labelling a field).
func isTypeUse(c *astutil.Cursor) bool {
	switch c.Parent().(type) {
	case *ast.TypeSpec:
		return c.Name() != "Name"
	case *ast.Field:
		return c.Name() == "Type"
	case *ast.KeyValueExpr:
		return c.Name() != "Key"
	case *ast.FuncDecl:
		return false
	case *ast.ValueSpec:
		return c.Name() != "Names"
	case *ast.File:
		return false
	}
	return true
}
